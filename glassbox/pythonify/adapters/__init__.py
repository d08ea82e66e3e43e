"""Adapters: each turns one source of recorded compile-time facts into pythonify IR nodes.

``guards`` (Dynamo's guard trees), ``inputs`` (the entry frame and graph input paths), ``aot``
(AOTAutograd graphs and metadata, Inductor output code), ``cudagraphs`` (``reduce-overhead``),
``glue`` (the transformed code, decompiled; ``constants`` names what marshal cannot carry),
``values`` (objects restated by name or value), ``signature`` (parameters and literals),
``dynamo`` (the recording backend and bytecode hook).
"""
