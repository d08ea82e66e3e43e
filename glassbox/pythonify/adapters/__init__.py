"""Adapters: each turns one source of recorded compile-time facts into pythonify IR nodes.

``guards`` (Dynamo's guard trees), ``inputs`` (the entry frame and graph input paths), ``aot``
(AOTAutograd graphs and metadata, Inductor output code), ``cudagraphs`` (``reduce-overhead``),
``glue`` (transformed bytecode), ``dynamo`` (the recording backend and bytecode hook).
"""
