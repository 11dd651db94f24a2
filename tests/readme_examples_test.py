"""The README is a new user's contract: every example whose output does not depend on the machine
(verify, model, topo show, plan; no timings) is run as written, from the repository's root, and
must print what the README shows. An example may leave out the end of its output (the README says
so where it does: "volume table left out"), so what is shown must be the start of what is printed,
stdout then stderr, line for line.

    python3 readme_examples_test.py REPOSITORY_ROOT BUILD_DIR
"""
import os
import shlex
import subprocess
import sys

DETERMINISTIC = ("verify", "model", "topo", "plan")


def examples(readme):
    """(line number, command, shown output) of each `$ build/ringlab COMMAND ...` example whose
    command is one of DETERMINISTIC."""
    lines = readme.split("\n")
    found = []
    for number, line in enumerate(lines):
        if not line.startswith("$ build/ringlab "):
            continue
        command = line[2:]
        if shlex.split(command)[1] not in DETERMINISTIC:
            continue
        shown = []
        for following in lines[number + 1:]:
            if following.startswith("```") or following.startswith("$ "):
                break
            shown.append(following)
        while shown and not shown[-1]:
            shown.pop()
        found.append((number + 1, command, shown))
    return found


def main(root, build):
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        found = examples(f.read())
    if len(found) < 5:
        print(f"FAIL: found {len(found)} examples in README.md; the reader lost them")
        return 1
    failures = 0
    for line, command, shown in found:
        if not shown:  # an example that shows no output would pass whatever it printed
            failures += 1
            print(f"FAIL: README.md line {line}: `{command}` shows no output to compare with")
            continue
        # The README's commands name build/ringlab; the build being tested may be elsewhere.
        argv = [os.path.join(os.path.abspath(build), "ringlab"), *shlex.split(command)[1:]]
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=120)
        printed = (done.stdout + done.stderr).rstrip("\n").split("\n")
        if printed[:len(shown)] != shown:
            failures += 1
            print(f"FAIL: README.md line {line}: `{command}` prints, from its first line:")
            print("\n".join(printed[:len(shown) + 3]))
            print("where the README shows:")
            print("\n".join(shown))
        else:
            print(f"ok: README.md line {line}: {command}")
    print(f"{len(found) - failures} of {len(found)} README examples print what the README shows")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
