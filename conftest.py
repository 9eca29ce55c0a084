"""Set for every pytest run from this repository, `pytest --nbval book/ch1_act.ipynb` included."""

import os

# No progress bars in anything the tests run, the chapters' kernels under nbval included (they inherit
# this environment): the committed chapters carry no bars, so a bar would be a difference.
os.environ["PONDERLIB_PROGRESS"] = "0"
