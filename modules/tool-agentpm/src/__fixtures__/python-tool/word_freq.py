"""word-freq: reads {"text", "top"} on stdin, prints {"top": [{"word", "count"}], "case"} on stdout."""
import json
import os
import re
import sys
from collections import Counter


def main() -> None:
    request = json.load(sys.stdin)
    mode = os.environ.get("WORD_FREQ_CASE", "lower")
    text = request["text"].lower() if mode == "lower" else request["text"]
    counts = Counter(re.findall(r"[\w']+", text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[: request.get("top", 3)]
    json.dump({"top": [{"word": w, "count": c} for w, c in ranked], "case": mode}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
