// MathJax 2.7 (Debian's libjs-mathjax, copied into the site by generator/mcsgen/manual/hooks.py):
// render the \( \) and \[ \] spans pymdownx.arithmatex writes, and nothing else.
window.MathJax = {
  tex2jax: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]],
             processEscapes: false, processEnvironments: false },
  TeX: { equationNumbers: { autoNumber: "none" } },
  CommonHTML: { linebreaks: { automatic: false } },
  showMathMenu: false,
  messageStyle: "none"
};
