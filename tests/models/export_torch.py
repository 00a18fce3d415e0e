#!/usr/bin/python3
"""Small modules in the style of typical exported models, written by
torch.onnx.export: the local models of tests/models/models.txt.

    usage: export_torch.py [--out DIR] [--opsets 13,17] [--only NAME]

Each module is exported at each opset (13 and 17) with named dynamic axes
(batch, sequence, time, spatial dimensions) into DIR/<name>-op<opset>.onnx
(default: tests/models/torch). The files are left exactly as the exporter
writes them: no onnx.shape_inference, no simplifier, no editing; the
exporter's own defaults (constant folding on) are kept. Weights are random
(torch.manual_seed) and hidden sizes tiny, so every file stays small.

The modules, each with the slice-like ops a real model of its kind has:

- gpt2_block: a GPT-2 decoder block with a KV cache. Inputs x [batch, seq,
  64], past_k and past_v [batch, 4, past, 16]; q/k/v split from one fused
  projection (Split), the cache concatenated with the new keys and values,
  the causal mask sliced from a registered tril buffer with [:, :,
  past:past+seq, :past+seq] (sizes from Shape/Gather, a Slice with runtime
  starts and ends); outputs y, present_k, present_v.
- bert_layer: BERT embeddings and one encoder layer. Inputs input_ids and
  attention_mask [batch, seq] (int64); word embeddings (Gather of a table
  by runtime indices), position ids sliced from a buffer ([:, :seq]), the
  extended attention mask (mask[:, None, None, :]), heads reshaped from
  x.size()[:-1] + (heads, head_size), the CLS token x[:, 0] (Gather) into a
  pooler; outputs hidden and pooled.
- yolo_head: a YOLOv5-style Focus stem and detection head. Input images
  [batch, 3, height, width] (height, width multiples of 4); Focus
  (x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2,
  1::2] concatenated), convs, the head's view/permute into [batch,
  anchors, ny, nx, 5 + classes], a grid from the runtime sizes, and the
  box/objectness/class channels sliced ([..., 0:2], [..., 2:4], [...,
  4:5], [..., 5:]); output detections [batch, anchors * ny * nx, 9].
- audio_frontend: an audio front end. Input wav [batch, samples] (samples >
  4); reflect padding (F.pad mode reflect), framing by strided slices whose
  ends come from the padded length, a Whisper-like conv front end (the
  second conv of stride 2), a 2x decimation (x[..., ::2]) and the first
  half of the time axis by a length taken from the shape (x[:, :, :
  x.shape[-1] // 2]); output features [batch, 32, frames].
"""
import argparse
import math
import os

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class GPT2Block(nn.Module):
    def __init__(self, d=64, heads=4, max_positions=64):
        super().__init__()
        self.d, self.heads, self.head_size = d, heads, d // heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, d)
        self.mlp_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(max_positions, max_positions, dtype=torch.bool))
                             .view(1, 1, max_positions, max_positions))

    def split_heads(self, t):
        b, s = t.size(0), t.size(1)
        return t.view(b, s, self.heads, self.head_size).permute(0, 2, 1, 3)

    def forward(self, x, past_k, past_v):
        h = self.ln_1(x)
        q, k, v = self.c_attn(h).split(self.d, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        past, seq = past_k.size(-2), x.size(1)
        mask = self.bias[:, :, past:past + seq, :past + seq]
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size)
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        a = torch.matmul(F.softmax(w, dim=-1), v)
        a = a.permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size()[:-2] + (self.d,))
        x = x + self.c_proj(a)
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x, k, v


class BertLayer(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, max_positions=64):
        super().__init__()
        self.heads, self.head_size = heads, d // heads
        self.word_embeddings = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(max_positions, d)
        self.register_buffer("position_ids", torch.arange(max_positions).expand((1, -1)))
        self.emb_norm = nn.LayerNorm(d, eps=1e-12)
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_out = nn.Linear(d, d)
        self.attn_norm = nn.LayerNorm(d, eps=1e-12)
        self.intermediate = nn.Linear(d, 2 * d)
        self.output = nn.Linear(2 * d, d)
        self.out_norm = nn.LayerNorm(d, eps=1e-12)
        self.pooler = nn.Linear(d, d)

    def transpose_for_scores(self, t):
        shape = t.size()[:-1] + (self.heads, self.head_size)
        return t.view(shape).permute(0, 2, 1, 3)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.size(1)
        position_ids = self.position_ids[:, :seq]
        x = self.emb_norm(self.word_embeddings(input_ids) + self.position_embeddings(position_ids))
        mask = attention_mask[:, None, None, :].to(dtype=x.dtype)
        mask = (1.0 - mask) * torch.finfo(x.dtype).min
        q = self.transpose_for_scores(self.query(x))
        k = self.transpose_for_scores(self.key(x))
        v = self.transpose_for_scores(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size) + mask
        c = torch.matmul(F.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        c = c.view(c.size()[:-2] + (self.heads * self.head_size,))
        x = self.attn_norm(self.attn_out(c) + x)
        x = self.out_norm(self.output(F.gelu(self.intermediate(x))) + x)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


class YoloHead(nn.Module):
    def __init__(self, classes=4, anchors=((10, 13), (16, 30), (33, 23)), stride=4):
        super().__init__()
        self.no, self.na, self.stride = classes + 5, len(anchors), stride
        self.focus = nn.Conv2d(12, 16, 3, 1, 1)
        self.down = nn.Conv2d(16, 16, 3, 2, 1)
        self.m = nn.Conv2d(16, self.na * self.no, 1)
        self.register_buffer("anchor_grid", torch.tensor(anchors, dtype=torch.float32).view(1, self.na, 1, 1, 2))

    def forward(self, x):
        x = torch.cat((x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]), 1)
        x = F.silu(self.focus(x))
        x = self.m(F.silu(self.down(x)))
        bs, _, ny, nx = x.shape
        x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
        y = x.sigmoid()
        xy = (y[..., 0:2] * 2 - 0.5 + grid) * self.stride
        wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid
        conf = y[..., 4:5]
        cls = y[..., 5:]
        return torch.cat((xy, wh, conf, cls), -1).view(bs, -1, self.no)


class AudioFrontEnd(nn.Module):
    def __init__(self, window=8, hop=4, channels=32):
        super().__init__()
        self.window, self.hop = window, hop
        self.conv1 = nn.Conv1d(window, channels, 3, padding=1)
        self.conv2 = nn.Conv1d(channels, channels, 3, stride=2, padding=1)

    def forward(self, wav):
        x = F.pad(wav.unsqueeze(1), (self.window // 2, self.window // 2), mode="reflect")
        frames = (x.shape[-1] - self.window) // self.hop + 1
        span = (frames - 1) * self.hop + 1
        x = torch.cat([x[:, :, k:k + span:self.hop] for k in range(self.window)], 1)  # [batch, window, frames]
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x[..., ::2]
        return x[:, :, :x.shape[-1] // 2]


MODULES = {
    "gpt2_block": (GPT2Block,
                   {"x": (2, 3, 64), "past_k": (2, 4, 5, 16), "past_v": (2, 4, 5, 16)},
                   ["y", "present_k", "present_v"],
                   {"x": {0: "batch", 1: "seq"}, "past_k": {0: "batch", 2: "past"},
                    "past_v": {0: "batch", 2: "past"}, "y": {0: "batch", 1: "seq"},
                    "present_k": {0: "batch", 2: "total"}, "present_v": {0: "batch", 2: "total"}}),
    "bert_layer": (BertLayer,
                   {"input_ids": ("int64", 2, 7), "attention_mask": ("int64", 2, 7)},
                   ["hidden", "pooled"],
                   {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                    "hidden": {0: "batch", 1: "seq"}, "pooled": {0: "batch"}}),
    "yolo_head": (YoloHead,
                  {"images": (1, 3, 32, 32)},
                  ["detections"],
                  {"images": {0: "batch", 2: "height", 3: "width"}, "detections": {0: "batch", 1: "boxes"}}),
    "audio_frontend": (AudioFrontEnd,
                       {"wav": (2, 400)},
                       ["features"],
                       {"wav": {0: "batch", 1: "samples"}, "features": {0: "batch", 2: "frames"}}),
}


def example(spec):
    if spec[0] == "int64":
        return torch.randint(0, 10, spec[1:], dtype=torch.int64)
    return torch.randn(spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "torch"))
    parser.add_argument("--opsets", default="13,17")
    parser.add_argument("--only", help="only this module")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (cls, inputs, outputs, dynamic) in MODULES.items():
        if args.only and name != args.only:
            continue
        for opset in (int(o) for o in args.opsets.split(",")):
            torch.manual_seed(0)
            module = cls().eval()
            example_args = tuple(example(spec) for spec in inputs.values())
            path = os.path.join(args.out, f"{name}-op{opset}.onnx")
            with torch.no_grad():
                torch.onnx.export(module, example_args, path, input_names=list(inputs), output_names=outputs,
                                  dynamic_axes=dynamic, opset_version=opset)
            print(f"{os.path.relpath(path)}: {os.path.getsize(path)} bytes", flush=True)


if __name__ == "__main__":
    main()
