"""The typed program: the one definition of every construct between the checker and the engines.

`vbr.ir.build.build_program(model)` turns a checked model into a `Program` (`vbr.ir.nodes`): a
fixed state layout of 64-bit integers and, per phase, procedure and setup, a control-flow graph
of blocks over typed expressions. Each engine (`vbr.engines.python_engine`, `vbr.engines.c_engine`)
says once how it runs each node. This package never imports an engine.
"""
