// Reads stdin and never answers (not even initialize).
process.stdin.resume();
setInterval(() => {}, 1 << 30);
