"""Fixtures shared by the test modules."""

import pytest
import torch


@pytest.fixture
def one_thread():
    """These models are tiny: one CPU thread is faster than two, and far faster on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
