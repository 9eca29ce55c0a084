// The book's search ranking and snippets (Sphinx's html_search_scorer: Sphinx inlines this file into
// _static/language_data.js, which the search page loads after searchtools.js).
//
// Ranking: Sphinx's default weights, then a page of the book (a lesson, a report, the introduction) is
// raised and an object of the generated API reference (book/autoapi/...) lowered, so that a search for
// "PonderNet" lists the chapters and their sections before the classes and functions of that name.
//
// Snippets: Sphinx shows the text around the first place a search word occurs in the page's main
// block. In this theme that block begins with the page's title, its launch buttons and its list of
// sections, so a chapter's snippet read "Binder Colab Repository ... Contents ...". The snippet is
// taken from the body instead: without headings, navigation, the in-page table of contents and code.
// An API object's result (which Sphinx lists with its type only) gets its docstring as a snippet, and
// its dotted name may break after a dot on a phone instead of inside a word.
var Scorer = {
  // Sphinx 7.4's defaults (searchtools.js), unchanged.
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,

  // result: [docname, title, anchor, descr, score, filename, kind]
  score: (result) => {
    const [docname, , , , score] = result;
    if (docname.startsWith("book/autoapi/")) return score - 20;
    if (docname.startsWith("book/") || docname === "intro") return score + 20;
    return score;
  },
};

const BOOK_SEARCH_DROPPED = [
  "h1", "h2", "h3", "h4", "h5", ".headerlink", "nav", "footer", ".bd-toc", ".bd-header-article",
  ".toctree-wrapper", ".prev-next-area", ".cell_input", "div.highlight", "script", "style",
].join(", ");

// The text a snippet is cut from: the block ``anchor`` names (a definition's signature and docstring
// where it names an API object), else the page's main block; headings, navigation and code removed.
const bookSearchText = (htmlString, anchor) => {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  const main = page.querySelector('[role="main"]') || page.body;
  let block = anchor ? page.getElementById(decodeURIComponent(anchor.slice(1))) : null;
  if (block && block.tagName === "DT") block = block.parentElement;
  page.querySelectorAll(BOOK_SEARCH_DROPPED).forEach((el) => el.remove());
  const text = (block && main.contains(block) ? block : main).textContent;
  return text.replace(/\\[()]/g, "").replace(/\s+/g, " ").trim(); // inline math as its TeX, no \( \)
};

// An API object's result: a break opportunity after each dot of its name, and its docstring as snippet.
const bookSearchComplete = (item) => {
  const link = item.querySelector("a");
  if (!link || item.dataset.bookSearch) return;
  item.dataset.bookSearch = "done";
  const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    node.nodeValue = node.nodeValue.replace(/\.(?![\s\u200b])/g, ".\u200b");
  }
  if (!item.querySelector("span") || item.querySelector("p.context")) return; // a page: Sphinx adds it
  const query = new URLSearchParams(window.location.search).get("q") || "";
  const terms = new Set(query.toLowerCase().split(/\s+/).filter(Boolean));
  const url = new URL(link.href);
  fetch(url.pathname)
    .then((response) => response.text())
    .then((html) => {
      const summary = Search.makeSearchSummary(html, terms, url.hash);
      if (summary) item.appendChild(summary);
    });
};

document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined") return; // not the search page
  Search.htmlToText = bookSearchText;
  const results = document.getElementById("search-results");
  if (!results) return;
  new MutationObserver(() => results.querySelectorAll("li").forEach(bookSearchComplete)).observe(results, {
    childList: true,
    subtree: true,
  });
});
