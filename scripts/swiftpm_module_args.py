"""Prints, one per line, the compiler arguments SwiftPM used for a module's sources (from its build manifest,
.build/debug.yaml), without the outputs, the module's name and its source files: what `scripts/check-views` needs to
compile the same sources again against other modules (search paths, C module maps, defines, the Swift version).

    python3 scripts/swiftpm_module_args.py .build/debug.yaml OakAppUI
"""
import json
import re
import sys

# Arguments that name an output or the sources, dropped with the value that follows them.
DROPPED_WITH_VALUE = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path",
                      "-module-cache-path", "-module-name"}
# Arguments about outputs, incremental builds and debugging, dropped alone.
DROPPED = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-serialize-diagnostics",
           "-parseable-output", "-emit-objc-header", "-g", "-enable-testing", "-parse-as-library"}


def module_args(manifest: str, module: str) -> list[str]:
    start = manifest.find(f'"C.{module}-')
    found = re.search(r"^\s*args: (\[.*\])$", manifest[start:], re.M) if start >= 0 else None
    if not found:
        sys.exit(f"swiftpm_module_args: no compile command for {module} in the manifest; build it first")
    args = json.loads(found.group(1))[1:]  # without the compiler's path
    kept, index = [], 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg in ("-Xcc", "-Xlinker"):  # passed on with its value, whatever the value is
            kept += [arg, args[index]]
            index += 1
        elif arg in DROPPED_WITH_VALUE:
            index += 1
        elif not (arg in DROPPED or arg.startswith("@") or re.fullmatch(r"-j\d+", arg)):
            kept.append(arg)
    return kept


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: swiftpm_module_args.py MANIFEST MODULE")
    with open(sys.argv[1]) as file:
        print("\n".join(module_args(file.read(), sys.argv[2])))
