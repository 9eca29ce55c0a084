"""Fixtures shared by the test modules."""

import os

import pytest
import torch

from ponderlib.engine import PROGRESS_VARIABLE

# No progress bars in anything the tests run, the chapters' kernels under nbval included (they inherit
# this environment): the committed chapters carry no bars, so a bar would be a difference.
os.environ[PROGRESS_VARIABLE] = "0"


@pytest.fixture
def one_thread():
    """These models are tiny: one CPU thread is faster than two, and far faster on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
