"""Fixtures shared by the test modules."""

import os

# Ray's local clusters use token authentication, and Ray reads this variable once, when it is first
# imported: set here, before any test module imports ray, a driver and the clusters the tests start
# (in this process or in another) agree, whichever module pytest collects first.
os.environ.setdefault("RAY_AUTH_MODE", "token")

import pytest  # noqa: E402
import torch


@pytest.fixture
def one_thread():
    """These models are tiny: one CPU thread is faster than two, and far faster on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
