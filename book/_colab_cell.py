# Set-up: on Colab, install ponderlib from the book's repository; in a clone of the repository,
# make `import ponderlib` work from any working directory. Anywhere else this cell does nothing.
import importlib.util
import pathlib
import subprocess
import sys

REPOSITORY_URL = "https://github.com/learning-to-ponder/learning-to-ponder"

if "google.colab" in sys.modules:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"git+{REPOSITORY_URL}"], check=True)
    from google.colab import output

    output.enable_custom_widget_manager()  # Colab renders ipywidgets 8 through its custom manager
elif importlib.util.find_spec("ponderlib") is None:
    for folder in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents]:
        if (folder / "ponderlib" / "__init__.py").is_file():
            sys.path.insert(0, str(folder))
            break
