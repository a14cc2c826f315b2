"""Python's `ast` node classes for generated code, each with a position of its own.

compile() wants a line and column on every statement and expression. Generated code has no
source, so every node of it stands at line 1: the classes below carry that as a class
default, which saves a pass over every node (ast.fix_missing_locations) that cost more than
compiling itself. compile() accepts subclasses of the node types. Everything else of `ast`
(operators, contexts, `walk`, `AST`) is re-exported unchanged, so `from vbr.interpreter import
pyast as ast` reads like the standard module.
"""
from __future__ import annotations

import ast as _ast
from ast import *  # noqa: F401,F403  the operator and context classes, AST, walk, dump, ...


class _Located:
    lineno = end_lineno = 1
    col_offset = end_col_offset = 0


def _located(cls):
    return type(cls.__name__, (_Located, cls), {"__module__": __name__, "__doc__": cls.__doc__})


# every statement and expression node the lowering builds (and arg, excepthandler)
Assign = _located(_ast.Assign)
AugAssign = _located(_ast.AugAssign)
Expr = _located(_ast.Expr)
If = _located(_ast.If)
For = _located(_ast.For)
While = _located(_ast.While)
Break = _located(_ast.Break)
Continue = _located(_ast.Continue)
Pass = _located(_ast.Pass)
Return = _located(_ast.Return)
Try = _located(_ast.Try)
Raise = _located(_ast.Raise)
FunctionDef = _located(_ast.FunctionDef)
ExceptHandler = _located(_ast.ExceptHandler)
arg = _located(_ast.arg)
Name = _located(_ast.Name)
Constant = _located(_ast.Constant)
Attribute = _located(_ast.Attribute)
Subscript = _located(_ast.Subscript)
Call = _located(_ast.Call)
Tuple = _located(_ast.Tuple)
List = _located(_ast.List)
Compare = _located(_ast.Compare)
BinOp = _located(_ast.BinOp)
BoolOp = _located(_ast.BoolOp)
UnaryOp = _located(_ast.UnaryOp)
IfExp = _located(_ast.IfExp)
NamedExpr = _located(_ast.NamedExpr)
GeneratorExp = _located(_ast.GeneratorExp)
Slice = _located(_ast.Slice)
Dict = _located(_ast.Dict)
