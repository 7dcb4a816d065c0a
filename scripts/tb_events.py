"""Reads the scalars of tensorboard event files (TFRecord of Event protos)
without tensorflow or tensorboard installed: the framing and the three
protobuf messages involved are small enough to decode by hand."""

import glob
import os
import struct


def _varint(buf, pos):
    value, shift = 0, 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(buf):
    """Yields (field number, wire type, value) of one protobuf message."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value = buf[pos:pos + 8]
            pos += 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            value = buf[pos:pos + length]
            pos += length
        elif wire == 5:
            value = buf[pos:pos + 4]
            pos += 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def _records(path):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        start = pos + 12
        if start + length + 4 > len(data):
            break  # a record still being written
        yield data[start:start + length]
        pos = start + length + 4


def read_scalars(run_tb_dir):
    """{tag: [(step, wall_time, value), ...]} over every event file of a
    folder, sorted by step (a resumed run has several files)."""
    scalars = {}
    for path in sorted(glob.glob(os.path.join(run_tb_dir, "events.out.tfevents.*"))):
        for record in _records(path):
            wall, step, summary = 0.0, 0, None
            for number, _, value in _fields(record):
                if number == 1:
                    (wall,) = struct.unpack("<d", value)
                elif number == 2:
                    step = value
                elif number == 5:
                    summary = value
            if summary is None:
                continue
            for number, _, value in _fields(summary):
                if number != 1:
                    continue
                tag, simple = None, None
                for n, _, v in _fields(value):
                    if n == 1:
                        tag = v.decode("utf-8")
                    elif n == 2:
                        (simple,) = struct.unpack("<f", v)
                if tag is not None and simple is not None:
                    scalars.setdefault(tag, []).append((step, wall, simple))
    for series in scalars.values():
        series.sort(key=lambda p: (p[0], p[1]))
    return scalars
