"""The bibliography labelled as the text cites: "Graves, 2016", not "[Gra16]".

The chapters cite author-year (``bibtex_reference_style: author_year``: "Graves (2016)", "(Banino et
al., 2021)"); sphinxcontrib-bibtex's default bibliography style labels its entries alphabetically
("[BBB21]"), so a reader meets two names for one paper. This registers the pybtex style ``authoryear``:
pybtex's ``unsrt`` formatting, entries sorted by author and year, each labelled as the text cites it.
"""

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle


def _surname(person) -> str:
    return " ".join(person.prelast_names + person.last_names).replace("{", "").replace("}", "")


class AuthorYearLabels(BaseLabelStyle):
    """"Graves, 2016"; "Bahdanau and Cho, 2015" for two authors; "Vinyals et al., 2015" for more."""

    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            if not people:
                names = entry.fields.get("key", entry.key)
            elif len(people) == 1:
                names = _surname(people[0])
            elif len(people) == 2:
                names = f"{_surname(people[0])} and {_surname(people[1])}"
            else:
                names = f"{_surname(people[0])} et al."
            yield f"{names}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearStyle(UnsrtStyle):
    default_label_style = AuthorYearLabels
    default_sorting_style = SortingStyle


def setup(app):
    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
