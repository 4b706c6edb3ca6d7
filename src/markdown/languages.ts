// Code block languages: the aliases Zulip accepts, the display name Pygments gives each (the
// `data-code-language` of a block), and the Prism grammar that highlights it here.

interface Language {
  /** Pygments' name for the lexer. */
  name: string;
  /** The Prism grammar, when Prism has one. */
  prism?: string;
}

// [Pygments name, Prism grammar or '', aliases...]; an alias is looked up lowercased.
const table: [string, string, ...string[]][] = [
  ['Python', 'python', 'python', 'py', 'sage', 'python3', 'py3', 'bazel', 'starlark', 'pyi'],
  ['Python 2.x', 'python', 'python2', 'py2'],
  ['Python console session', 'python', 'pycon'],
  ['JavaScript', 'javascript', 'javascript', 'js', 'mjs', 'cjs'],
  ['TypeScript', 'typescript', 'typescript', 'ts'],
  ['JSX', 'jsx', 'jsx', 'react'],
  ['TSX', 'tsx', 'tsx'],
  ['JSON', 'json', 'json', 'json-object'],
  ['YAML', 'yaml', 'yaml'],
  ['TOML', 'toml', 'toml'],
  ['INI', 'ini', 'ini', 'cfg', 'dosini'],
  ['HTML', 'markup', 'html'],
  ['XML', 'markup', 'xml'],
  ['CSS', 'css', 'css'],
  ['SCSS', 'scss', 'scss'],
  ['Markdown', 'markdown', 'markdown', 'md'],
  ['TeX', 'latex', 'tex', 'latex'],
  ['Bash', 'bash', 'bash', 'sh', 'ksh', 'zsh', 'shell'],
  ['Bash Session', 'bash', 'console', 'shell-session'],
  ['PowerShell', 'powershell', 'powershell', 'pwsh', 'posh', 'ps1', 'psm1'],
  ['Batchfile', 'batch', 'batch', 'bat', 'dosbatch', 'winbatch'],
  ['C', 'c', 'c'],
  ['C++', 'cpp', 'cpp', 'c++'],
  ['C#', 'csharp', 'csharp', 'c#', 'cs'],
  ['Objective-C', 'objectivec', 'objective-c', 'objectivec', 'obj-c', 'objc'],
  ['Java', 'java', 'java'],
  ['Kotlin', 'kotlin', 'kotlin'],
  ['Scala', 'scala', 'scala'],
  ['Groovy', 'groovy', 'groovy'],
  ['Go', 'go', 'go', 'golang'],
  ['Rust', 'rust', 'rust', 'rs'],
  ['Swift', 'swift', 'swift'],
  ['Dart', 'dart', 'dart'],
  ['Ruby', 'ruby', 'ruby', 'rb', 'duby'],
  ['PHP', 'php', 'php', 'php3', 'php4', 'php5'],
  ['Perl', 'perl', 'perl', 'pl'],
  ['Lua', 'lua', 'lua'],
  ['R', 'r', 'r', 's', 'splus'],
  ['Julia', 'julia', 'julia', 'jl'],
  ['Haskell', 'haskell', 'haskell', 'hs'],
  ['OCaml', 'ocaml', 'ocaml'],
  ['F#', 'fsharp', 'fsharp', 'f#'],
  ['Elixir', 'elixir', 'elixir', 'ex', 'exs'],
  ['Erlang', 'erlang', 'erlang'],
  ['Clojure', 'clojure', 'clojure', 'clj'],
  ['Common Lisp', 'lisp', 'common-lisp', 'cl', 'lisp'],
  ['Scheme', 'scheme', 'scheme', 'scm'],
  ['SQL', 'sql', 'sql'],
  ['PostgreSQL SQL dialect', 'sql', 'postgresql', 'postgres'],
  ['MySQL', 'sql', 'mysql'],
  ['GraphQL', 'graphql', 'graphql'],
  ['Protocol Buffer', 'protobuf', 'protobuf', 'proto'],
  ['Diff', 'diff', 'diff', 'udiff'],
  ['Docker', 'docker', 'docker', 'dockerfile'],
  ['Makefile', 'makefile', 'make', 'makefile', 'mf', 'bsdmake'],
  ['Nginx configuration file', 'nginx', 'nginx'],
  ['Nix', 'nix', 'nixos', 'nix'],
  ['Zig', 'zig', 'zig'],
  ['Verilog', 'verilog', 'verilog', 'v'],
  ['VHDL', 'vhdl', 'vhdl'],
  ['Fortran', 'fortran', 'fortran', 'f90'],
  ['Matlab', 'matlab', 'matlab'],
  ['VimL', 'vim', 'vim'],
  ['Django/Jinja', 'django', 'django', 'jinja'],
  ['Handlebars', 'handlebars', 'handlebars'],
  ['Text only', '', 'text'],
];

const byAlias = new Map<string, Language>();
for (const [name, prism, ...aliases] of table) {
  for (const alias of aliases) byAlias.set(alias, prism ? { name, prism } : { name });
}

/** The language of a fence's (lowercased) language tag, when Pygments knows it. */
export const languageOf = (alias: string): Language | undefined => byAlias.get(alias);
