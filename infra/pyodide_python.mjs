// `node pyodide_python.mjs -c CODE [ARG...]` or `-m MODULE [ARG...]`: runs Pyodide's CPython
// (the npm package pinned in package.json) as `python` would, with each host directory named
// in the arguments mounted at the same path. infra/bundling.py compiles the Lambda asset's
// bytecode with it when this machine has no native interpreter of the runtime's version.
import { statSync } from "node:fs";
import { loadPyodide } from "pyodide";

const args = process.argv.slice(2);

function isDirectory(path) {
  try {
    return path.startsWith("/") && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const pyodide = await loadPyodide();
const mounted = [];
for (const path of args.filter(isDirectory).sort((a, b) => a.length - b.length)) {
  if (!mounted.some((root) => path === root || path.startsWith(root + "/"))) {
    pyodide.FS.mkdirTree(path);
    pyodide.mountNodeFS(path, path);
    mounted.push(path);
  }
}
pyodide.globals.set("ARGS", pyodide.toPy(args));
try {
  const status = pyodide.runPython(`
import runpy, sys

def _run(flag, target, *rest):
    try:
        if flag == "-c":
            sys.argv = ["-c", *rest]
            exec(target, {"__name__": "__main__"})
        elif flag == "-m":
            sys.argv = [target, *rest]
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            raise SystemExit(f"pyodide_python.mjs takes -c or -m, not {flag!r}")
    except SystemExit as exit:
        if exit.code is None or isinstance(exit.code, int):
            return exit.code or 0
        print(exit.code, file=sys.stderr)
        return 1
    return 0

_run(*ARGS)
`);
  process.exitCode = status;
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
}
