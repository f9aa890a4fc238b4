"""The type stubs (`_qiku.pyi`) name every parameter as the compiled module does, so that a call
written with keywords as the stubs say passes the type checker and runs."""

import ast
import inspect
import pathlib

import qiku._qiku as native

STUB = pathlib.Path(native.__file__).parent / "_qiku.pyi"


def stub_functions():
    """(qualified name, parameter names) of every function and method in the stub."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{node.name}.{item.name}", item


def names(fn: ast.FunctionDef):
    args = fn.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")]


def test_stub_parameters_match_the_runtime():
    checked, mismatched = 0, []
    for qualified, fn in stub_functions():
        name = qualified.split(".")[-1]
        if name.startswith("__") and name != "__init__":
            continue  # operators are called positionally: their parameter names are not API
        obj = native
        for part in qualified.split(".")[: -1 if name == "__init__" else None]:
            obj = getattr(obj, part, None)  # a constructor's signature is the class's
        if obj is None or any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
            continue
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            continue  # no text signature (a slot such as __len__): nothing to compare
        runtime = [p for p in sig.parameters if p not in ("self", "cls", "$self", "$cls")]
        checked += 1
        if runtime != names(fn):
            mismatched.append(f"{qualified}: stub {names(fn)}, runtime {runtime}")
    assert checked > 50, f"only {checked} signatures compared"
    assert not mismatched, "\n".join(mismatched)


def test_stubs_name_the_copy_protocol():
    """copy.copy and copy.deepcopy of a Board are typed (the runtime has them)."""
    stubbed = {q for q, _ in stub_functions()}
    for cls in ["Board"]:
        for name in ["__copy__", "__deepcopy__"]:
            if hasattr(getattr(native, cls), name):
                assert f"{cls}.{name}" in stubbed, f"{cls}.{name} is missing from the stubs"
