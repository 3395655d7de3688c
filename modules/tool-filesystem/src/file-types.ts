/**
 * grep's `type` filter: file type names (ripgrep's, for the common ones) to
 * glob patterns on the file name, and the aliases models use for them.
 */

export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.c++', '*.hpp', '*.hh', '*.hxx', '*.h++', '*.h', '*.inl'],
  csharp: ['*.cs', '*.csx'],
  css: ['*.css', '*.scss', '*.sass', '*.less'],
  csv: ['*.csv', '*.tsv'],
  dart: ['*.dart'],
  docker: ['Dockerfile', 'Dockerfile.*', '*.dockerfile'],
  elixir: ['*.ex', '*.exs', '*.eex', '*.heex'],
  erlang: ['*.erl', '*.hrl'],
  go: ['*.go'],
  graphql: ['*.graphql', '*.gql'],
  haskell: ['*.hs', '*.lhs'],
  html: ['*.html', '*.htm', '*.xhtml'],
  java: ['*.java', '*.jsp'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.vue'],
  json: ['*.json', '*.jsonl', '*.json5', '*.geojson'],
  kotlin: ['*.kt', '*.kts'],
  lua: ['*.lua'],
  make: ['Makefile', 'makefile', 'GNUmakefile', '*.mk', '*.mak'],
  markdown: ['*.md', '*.markdown', '*.mdx'],
  php: ['*.php', '*.phtml'],
  proto: ['*.proto'],
  py: ['*.py', '*.pyi', '*.pyw'],
  r: ['*.R', '*.r', '*.Rmd'],
  ruby: ['*.rb', '*.rake', '*.gemspec', 'Gemfile', 'Rakefile'],
  rust: ['*.rs'],
  scala: ['*.scala', '*.sc', '*.sbt'],
  sh: ['*.sh', '*.bash', '*.zsh', '*.fish', '.bashrc', '.zshrc', '.profile'],
  sql: ['*.sql'],
  svelte: ['*.svelte'],
  swift: ['*.swift'],
  tf: ['*.tf', '*.tfvars'],
  toml: ['*.toml'],
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  txt: ['*.txt'],
  xml: ['*.xml', '*.xsd', '*.xsl', '*.xslt', '*.svg'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
};

export const FILE_TYPE_ALIASES: Readonly<Record<string, string>> = {
  typescript: 'ts',
  tsx: 'ts',
  javascript: 'js',
  jsx: 'js',
  python: 'py',
  rs: 'rust',
  golang: 'go',
  yml: 'yaml',
  rb: 'ruby',
  'c++': 'cpp',
  cs: 'csharp',
  kt: 'kotlin',
  md: 'markdown',
  shell: 'sh',
  bash: 'sh',
  dockerfile: 'docker',
  makefile: 'make',
  terraform: 'tf',
  text: 'txt',
};

/** The globs of a type name or alias (case-insensitive), or an error message for an unknown one. */
export function typeGlobs(name: string): readonly string[] | string {
  let key = name.toLowerCase();
  if (Object.hasOwn(FILE_TYPE_ALIASES, key)) key = FILE_TYPE_ALIASES[key]!;
  if (Object.hasOwn(FILE_TYPES, key)) return FILE_TYPES[key]!;
  const aliases = Object.entries(FILE_TYPE_ALIASES)
    .map(([alias, type]) => `${alias}→${type}`)
    .join(', ');
  return `Unrecognized file type: '${name}'. Valid types: ${Object.keys(FILE_TYPES).join(', ')}. Also accepts aliases: ${aliases}`;
}
