"""Per-op tests against eager: shapes, strides, broadcasting, empty and non-contiguous inputs.

Each case compiles a small function with backend="glassbox" and requires that every node of the
graph ran natively (the report says so) and that the results match eager.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from conftest import assert_close, compile_native, run_and_report

# Fixed inputs: a sum over hundreds of products can land near zero, where float32 rounding in a
# different summation order than eager's (either closer to the exact value) may exceed atol.
torch.manual_seed(0)
r = torch.randn


def nt(t):
    """A non-contiguous tensor with the same values (transposed storage)."""
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


def _nan_as_99(values_indices):
    """NaN values made comparable (assert_close takes NaN for a mismatch)."""
    values, indices = values_indices
    return torch.where(values == values, values, 99.0), indices


def _view_of_fused_value(a, b):
    t = a * 2 + b
    return t.view(2, 8, 4) * b + t * 3


CASES = {
    "add_broadcast": (lambda a, b: a + b, (r(3, 4), r(4))),
    "sub_alpha": (lambda a, b: torch.sub(a, b, alpha=2), (r(3, 4), r(3, 1))),
    "mul_div_scalar": (lambda a: a * 3 / 2 - 1, (r(5),)),
    "pow_sqrt_rsqrt": (lambda a: a.abs().pow(2) + a.abs().sqrt() + (a.abs() + 1).rsqrt(), (r(7),)),
    "activations": (
        lambda a: F.relu(a) + F.gelu(a) + F.silu(a) + torch.sigmoid(a) + torch.tanh(a),
        (r(2, 8),),
    ),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), (r(16),)),
    # Hugging Face's gelu_new: pow(x, 3.0) and tanh (both forms of tanh: |x| below and above 0.55)
    "gelu_new": (
        lambda a: 0.5 * a * (1.0 + torch.tanh(0.7978845608 * (a + 0.044715 * torch.pow(a, 3.0)))),
        (torch.linspace(-9, 9, 301),),
    ),
    "tanh_range": (torch.tanh, (torch.cat([torch.linspace(-12, 12, 257), r(64) * 1e-3]),)),
    # A view of a value that the same fused elementwise run produces (AOTAutograd's backward of a
    # residual add): the run must end before the view is read.
    "view_of_fused_value": (_view_of_fused_value, (r(2, 8, 4), r(2, 8, 4))),
    "repeat": (lambda a: a.repeat(2, 1, 3) + 1, (r(3, 4),)),
    "relu6_hardtanh": (lambda a: F.relu6(a * 4) + F.hardtanh(a, -0.5, 0.25), (r(4, 9),)),
    "vector_norm": (
        lambda a: torch.linalg.vector_norm(a, dim=-1, keepdim=True) + a.norm(p=2),
        (r(3, 5),),
    ),
    "group_norm": (
        lambda a, w, b: F.group_norm(a, 2, w, b, eps=1e-5) + F.group_norm(a * 2, 4),
        (r(2, 4, 3, 5), r(4), r(4)),
    ),
    "group_norm_1d": (lambda a, w: F.group_norm(a, 1, w, None), (r(2, 6, 7), r(6))),
    "repeat_of_view": (lambda a: a.t().repeat(2, 2) * 2, (r(3, 4),)),
    "constant_pad": (lambda a: F.pad(a, (1, 2, 0, 3), value=-1.5) + 1, (r(2, 3, 4),)),
    # padding="valid" reaches the graph as one padding for both spatial dims
    "conv2d_valid_padding": (
        lambda x, w: F.conv2d(x, w, stride=2, padding="valid"),
        (r(1, 3, 9, 9), r(4, 3, 3, 3)),
    ),
    "conv1d": (
        lambda x, w, b: F.relu(F.conv1d(x, w, b, stride=2, padding=1)),
        (r(2, 4, 11), r(6, 4, 3), r(6)),
    ),
    "conv1d_groups_dilation": (
        lambda x, w: F.conv1d(x, w, None, padding=2, dilation=2, groups=4),
        (r(1, 8, 9), r(8, 2, 3)),
    ),
    # A wide range (tails included) through every branch-free float32 approximation.
    "transcendental_range": (
        lambda a: (
            (F.gelu(a), F.gelu(a, approximate="tanh"), torch.erf(a), torch.sigmoid(a))
            + (F.silu(a), torch.exp(a.clamp(max=80)))
        ),
        (torch.linspace(-12, 12, 2401),),
    ),
    "exp_log": (lambda a: torch.log(torch.exp(a) + 1), (r(4, 4),)),
    "where_compare": (lambda a, b: torch.where(a > b, a, b * 2), (r(3, 4), r(3, 4))),
    "comparisons": (lambda a: (a >= 0) & (a < 0.5), (r(10),)),
    # bool inputs read a byte at a time and widened per block (masks as HF builds them)
    "bool_masks_broadcast": (
        lambda m, n, b: (torch.where(m & n, b, -1e9), (m | n).float(), ~m & n),
        (r(1, 1, 37, 37) > 0, r(3, 1, 1, 37) > 0.3, r(1, 2, 37, 37)),
    ),
    "bool_to_float_large": (lambda m: m.float() * 2, (r(4, 1000) > 0,)),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), (r(10),)),
    "mm": (lambda a, b: a @ b, (r(5, 3), r(3, 7))),
    "mm_transposed": (lambda a, b: a @ b.t(), (r(5, 3), r(7, 3))),
    "addmm_linear": (lambda x, w, b: F.linear(x, w, b), (r(4, 6), r(3, 6), r(3))),
    "linear_3d": (lambda x, w, b: F.linear(x, w, b), (r(2, 4, 6), r(3, 6), r(3))),
    # Short, wide products: split by columns over threads (edges off the 16-column grid).
    "linear_wide": (lambda x, w, b: F.linear(x, w, b), (r(8, 256), r(300, 256), r(300))),
    "mm_wide": (lambda a, b: a @ b, (r(3, 200), r(200, 500))),
    "mm_wide_transposed_a": (lambda a, b: a.t() @ b, (r(200, 1), r(200, 700))),
    # Activations applied by the product as it writes its result (the epilogue): on the packed
    # path (rows 2..64, a weight input), the BLAS path (one row; over 64 rows; split by
    # columns), through reshapes, and not when the product has another reader.
    "linear_relu_epilogue": (lambda x, w, b: F.relu(F.linear(x, w, b)), (r(5, 16), r(9, 16), r(9))),
    "linear_gelu_epilogue_3d": (
        lambda x, w, b: F.gelu(F.linear(x, w, b)),
        (r(2, 4, 16), r(9, 16), r(9)),
    ),
    "linear_gelu_tanh_epilogue": (
        lambda x, w: F.gelu(F.linear(x, w), approximate="tanh"),
        (r(70, 16), r(9, 16)),
    ),
    "mm_relu_epilogue_one_row": (lambda a, b: torch.relu(a @ b), (r(1, 256), r(256, 600))),
    # A gated MLP (Llama's): silu of one product, times another.
    "linear_silu_epilogue_gated": (
        lambda x, w1, w3: F.silu(F.linear(x, w1)) * F.linear(x, w3),
        (r(2, 33, 16), r(24, 16), r(24, 16)),
    ),
    "mm_silu_epilogue_one_row": (lambda a, b: F.silu(a @ b), (r(1, 256), r(256, 600))),
    # One-row linears whose rows are read against x held in registers (k a multiple of 256), with
    # row counts that leave remainders of the four-row groups, and one with k not a multiple.
    "linear_one_row_resident_x": (
        lambda x, w, b, x2, w2: (F.linear(x, w, b), F.linear(x2, w2)),
        (r(1, 768), r(515, 768), r(515), r(1, 300), r(130, 300)),
    ),
    "linear_relu_two_readers": (
        lambda x, w, b: (lambda h: (F.relu(h), h * 2))(F.linear(x, w, b)),
        (r(5, 16), r(9, 16), r(9)),
    ),
    # The epilogue's GELU over a wide range (identity weights keep the values), tails included.
    "gelu_epilogue_range": (
        lambda x, w, b: (F.gelu(F.linear(x, w, b)), F.gelu(F.linear(x[:1], w, b))),
        (torch.linspace(-12, 12, 48 * 50).reshape(48, 50), torch.eye(50), torch.zeros(50)),
    ),
    "bmm": (lambda a, b: torch.bmm(a, b), (r(2, 3, 4), r(2, 4, 5))),
    "matmul_4d": (lambda a, b: a @ b.transpose(-1, -2), (r(2, 3, 4, 5), r(2, 3, 6, 5))),
    "noncontiguous_input": (lambda a, b: a @ b + 1, (nt(r(4, 3)), nt(r(3, 2)))),
    "permute_reshape": (lambda a: a.permute(2, 0, 1).reshape(4, -1) * 2, (r(2, 3, 4),)),
    "expand": (lambda a: a.expand(3, 4, 5) + 0, (r(4, 1),)),
    # Reshapes of pending views: kept as views where strides allow, copied where they do not.
    "reshape_of_views": (
        lambda a: (
            (a[:, 1:3].reshape(-1) * 1, a.t().reshape(-1) * 1, a[::2].reshape(2, 3, 2) * 1)
            + (a[:, 2:].reshape(4, 2, 2).transpose(0, 1) * 1, a[1:3, :4].reshape(4, 2) * 1)
        ),
        (r(4, 6),),
    ),
    "split_heads": (
        lambda x: (lambda q, k, v: F.softmax(q @ k.transpose(-1, -2), -1) @ v)(
            *(y.reshape(2, 5, 2, 3).transpose(1, 2) for y in x.split(6, -1))
        ),
        (r(2, 5, 18),),
    ),
    "slice_select": (lambda a: a[1:, ::2] + a[0, 1], (r(4, 6),)),
    "cat": (lambda a, b: torch.cat([a, b * 2], dim=1), (r(2, 3), r(2, 5))),
    "sum_mean": (lambda a: a.sum(1) + a.mean(1), (r(3, 5, 2),)),
    "amax_amin_keepdim": (
        lambda a: a.amax(-1, keepdim=True) - a.amin(-1, keepdim=True),
        (r(3, 4),),
    ),
    "var": (lambda a: a.var(dim=-1, unbiased=True), (r(3, 6),)),
    "softmax": (lambda a: F.softmax(a, dim=-1) + F.log_softmax(a, dim=0), (r(4, 5),)),
    "layer_norm": (lambda a, w, b: F.layer_norm(a, (6,), w, b), (r(3, 6), r(6), r(6))),
    # Rows off the 16-lane grid, wide rows split over threads, masked (-inf) entries.
    "softmax_rows": (
        lambda a: (F.softmax(a, dim=-1), F.log_softmax(a, dim=-1), F.softmax(a[:, :37], dim=-1)),
        (r(700, 100) * 10,),
    ),
    "softmax_masked": (
        lambda a: F.softmax(a.masked_fill(torch.ones(8, 8, dtype=torch.bool).triu(1), -1e9), -1),
        (r(2, 8, 8),),
    ),
    "layer_norm_wide": (
        lambda a, w: (F.layer_norm(a, (1000,), w), F.layer_norm(a[:, :17] + 30, (17,))),
        (r(70, 1000), r(1000)),
    ),
    "conv2d": (
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
        (r(2, 3, 9, 9), r(4, 3, 3, 3), r(4)),
    ),
    "conv2d_groups_dilation": (
        lambda x, w: F.conv2d(x, w, None, padding=2, dilation=2, groups=2),
        (r(1, 4, 7, 7), r(6, 2, 3, 3)),
    ),
    # Batches large enough that images (convolution) and planes (pooling) go over threads.
    "conv2d_batch_threads": (
        lambda x, w, b, wg: (
            F.conv2d(x, w, b, padding=1),
            F.conv2d(x, wg, None, stride=2, padding=3, dilation=2, groups=4),
        ),
        (r(5, 8, 16, 16), r(16, 8, 3, 3), r(16), r(8, 2, 3, 3)),
    ),
    "max_pool": (lambda x: F.max_pool2d(x, 3, 2, 1), (r(1, 2, 8, 8),)),
    # Ties keep the first maximum, NaN wins; values and indices as torch gives them.
    "max_pool_ties_nan_indices": (
        lambda x: _nan_as_99(
            F.max_pool2d(x.round().where(x.abs() < 2.5, float("nan")), 3, 2, 1, 2, False, True)
        ),
        (r(6, 16, 24, 24),),
    ),
    "pools_many_planes": (
        lambda x: (F.max_pool2d(x, 2), F.avg_pool2d(x, 3, 2, 1), F.adaptive_avg_pool2d(x, 3)),
        (r(8, 32, 20, 20),),
    ),
    "avg_pool": (lambda x: F.avg_pool2d(x, 2), (r(1, 2, 8, 8),)),
    "adaptive_avg_pool": (lambda x: F.adaptive_avg_pool2d(x, 1), (r(2, 3, 5, 5),)),
    "embedding": (lambda w, i: F.embedding(i, w), (r(10, 4), torch.tensor([[1, 2], [9, 0]]))),
    "empty": (lambda a, b: (a + b).relu(), (r(0, 4), r(4))),
    # What model graphs build their attention masks and positions from (see
    # bench/backend_coverage.py): any/all, full_like, advanced indexing, gather, cumsum, int32.
    "any_all": (
        lambda m, x: (m.any(-1, keepdim=True), (x > 0).all(0), m.any(), x.any(1), (x > 9).all()),
        (r(3, 5) > 0, r(3, 5)),
    ),
    "full_like": (
        lambda x: (torch.full_like(x, 0.5) + x, torch.zeros_like(x, dtype=torch.long)),
        (r(2, 3),),
    ),
    "index_mask_by_positions": (
        lambda mask: mask[
            torch.arange(2)[:, None, None, None], torch.arange(6)[None, None, None, :]
        ],
        (r(2, 6) > 0,),
    ),
    "index_adjacent_and_separated": (
        lambda x, i, j: (x[:, i, j], x[i[:2], :, j[:2]], x[i], x[..., j]),
        (r(3, 4, 5), torch.tensor([0, -1, 2]), torch.tensor([4, 0, 1])),
    ),
    "gather": (
        lambda x, i: (torch.gather(x, 1, i), torch.gather(x, 0, i[:1].clamp(max=1))),
        (r(2, 4), torch.tensor([[3, 0, 0], [1, 2, 3]])),
    ),
    "cumsum_dtypes": (
        lambda x, ids: (
            torch.cumsum(x, 1),
            torch.cumsum(ids.ne(1), -1),
            (torch.cumsum(ids.ne(1).int(), 1).type_as(ids.ne(1).int()) * ids.ne(1).int()).long()
            + 1,
        ),
        (r(2, 5), torch.tensor([[0, 1, 4, 1, 7], [1, 1, 2, 3, 4]])),
    ),
    "int32_arange_pow": (
        lambda x: x * torch.pow(torch.tensor(0.5), torch.arange(1, 5, dtype=torch.int32)),
        (r(4),),
    ),
    "shift_tokens_right": (
        lambda ids: (lambda y: y.masked_fill(y == -100, 0))(
            torch.cat([torch.full_like(ids[:, :1], 2), ids[:, :-1]], 1)
        ),
        (torch.tensor([[5, -100, 7], [1, 2, 3]]),),
    ),
    "slice_and_select_scatter": (
        lambda x, s: torch.select_scatter(torch.slice_scatter(x, s, 1, 1, 4, 2), s[:, 0], 1, 0),
        (r(3, 5), r(3, 2)),
    ),
    "copy_broadcast_convert": (
        lambda x, y: torch.ops.aten.copy.default(x, y),
        (torch.zeros(2, 3, dtype=torch.long), torch.tensor([1.0, 2.0, 3.0])),
    ),
    "metadata_assertion_dropped": (
        lambda x: torch.ops.aten._assert_tensor_metadata(x, None, None, torch.float32) or x + 1,
        (r(3),),
    ),
    "scalar_0d": (lambda a, b: a * b, (r(()), r(3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_eager(name):
    fn, args = CASES[name]
    expected = fn(*args)
    actual, reports = run_and_report(fn, *args)
    assert_close(actual, expected)
    assert reports, "the backend was not called"
    for rep in reports:
        assert rep.native_share == 1.0, str(rep)


def test_unsupported_op_falls_back():
    fn = lambda a: torch.cumprod(a, 0).relu() * 2  # noqa: E731
    a = r(5, 3)
    actual, reports = run_and_report(fn, a)
    assert_close(actual, fn(a))
    assert any("cumprod" in op for rep in reports for op in rep.fallback_ops)
    assert reports[0].native_share < 1.0


def test_index_out_of_range_is_an_error_not_a_crash():
    fn = lambda x, i: x[i] * 2  # noqa: E731
    with pytest.raises(Exception, match="out of range"):
        compile_native(fn)(r(3, 2), torch.tensor([0, 3]))


def test_inference_max_pool_writes_no_indices(emitted):
    """Where nothing reads a max pool's indices (inference), the kernel is asked for the values
    only, which it computes a window tap at a time over whole rows."""
    x = r(2, 3, 9, 11)
    x[0, 0, 1, 1] = float("nan")
    fn = lambda x: F.max_pool2d(x, 3, 2, 1) + 1  # noqa: E731
    actual, _ = run_and_report(fn, x)
    torch.testing.assert_close(actual, fn(x), equal_nan=True)
    assert [len(i.outputs) for i in emitted if i.op == "max_pool2d"] == [1]


def test_silu_after_a_product_is_its_epilogue(emitted):
    """SiLU stays one op through the decompositions and is applied by the product that computed
    its input (GemmArgs.epilogue 4); a SiLU of anything else stays an elementwise step."""
    x, w1, w3 = r(2, 33, 16), r(24, 16), r(24, 16)

    def f(x, w1, w3):
        return F.silu(F.linear(x, w1)) * F.linear(x, w3) + F.silu(x).sum()

    with torch.no_grad():
        out, reports = run_and_report(f, x, w1, w3)
    assert_close(out, f(x, w1, w3))
    assert [r.native_nodes == r.total_nodes for r in reports] == [True]
    epilogues = [i.args.epilogue for i in emitted if i.op in ("mm", "addmm")]
    assert sorted(epilogues) == [0, 4]
