"""CUDA graphs adapter: ``mode="reduce-overhead"`` on CUDA becomes a :class:`CUDAGraphSetup`.

The written file then captures the region once into a ``torch.cuda.CUDAGraph`` over static input
and output buffers and replays it (parameters and buffers are static: same address every call;
other inputs are copied into the static buffers). On CPU there is nothing to capture; the node
is not made. This code path cannot be exercised without a GPU.
"""

from __future__ import annotations

from glassbox.pythonify.ir import CUDAGraphSetup


def cudagraph_setup(region_name: str, mode: str | None, input_sources, example_devices):
    if mode != "reduce-overhead" or not any(d == "cuda" for d in example_devices):
        return None
    static = [
        i
        for i, source in enumerate(input_sources)
        if "._parameters[" in source or "._buffers[" in source
    ]
    return CUDAGraphSetup(name=f"cudagraph_{region_name}", region=region_name, static_inputs=static)
