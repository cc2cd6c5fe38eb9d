"""The type stubs (alibi/_native.pyi) name exactly what the native module has: every class,
function and method, no more and no less."""

import ast
from pathlib import Path

import alibi._native as native

STUB = Path(native.__file__).parent / "_native.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members[node.name] = {
                n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
    return top, members


def test_the_stub_file_ships_with_the_package():
    assert STUB.exists()
    assert (STUB.parent / "py.typed").exists()


def test_top_level_names_match():
    top, _ = stub_names()
    actual = {n for n in dir(native) if not n.startswith("_") or n == "__version__"}
    assert top == actual


def test_methods_match():
    """Public methods and properties of every class (dunder methods aside)."""
    _, members = stub_names()
    for cls, names in members.items():
        obj = getattr(native, cls)
        if issubclass(obj, BaseException):
            continue
        own = {n for n in vars(obj) if not n.startswith("_")}
        assert {n for n in names if not n.startswith("_")} == own, cls


def test_bytes_arguments_are_typed_bytes_like():
    """Every bytes argument takes bytes, bytearray and memoryview, and the stubs say so."""
    tree = ast.parse(STUB.read_text())
    bare = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            if "bytes" in ast.unparse(node.annotation):
                bare.append(node.arg)
    assert bare == []
    assert "_BytesLike = Union[bytes, bytearray, memoryview]" in STUB.read_text()
