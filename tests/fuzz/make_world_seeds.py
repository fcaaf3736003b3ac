#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_world (tests/fuzz/corpus/world/): small valid programs in the
input format that fuzz_world.c reads, one per kind of scene, so that fuzzing starts from worlds in
which bodies touch, joints pull and motors drive rather than from empty ones.

The encoding follows fuzz_world.c: a number is a kind byte and its payload (kind 0: int8 / 16,
kind 3: int16 / 64, kind 6: the float's bits); a flag is a byte whose low bit counts; after the
world's settings every operation is an opcode byte (op_kind) and its arguments.

Usage: make_world_seeds.py [OUT_DIR]   (default: corpus/world beside this script)
"""
import os
import struct
import sys

# op_kind in fuzz_world.c
OP_BODY, OP_SHAPE, OP_JOINT, OP_CHANGE_BODY, OP_CHANGE_SHAPE, OP_CHANGE_JOINT, OP_QUERY, OP_WORLD, OP_STEP = (
    0, 1, 3, 4, 6, 7, 8, 9, 10)
STATIC, KINEMATIC, DYNAMIC = 0, 1, 2
SPHERE, BOX, CAPSULE, HULL, MESH, PLANE = range(6)
FIXED, REVOLUTE, PRISMATIC, SPHERICAL, DISTANCE, TARGET = range(6)


def num(v):
    if float(v * 16).is_integer() and -128 <= v * 16 <= 127:
        return bytes([0, int(v * 16) & 0xFF])
    if float(v * 64).is_integer() and -32768 <= v * 64 <= 32767:
        return bytes([3]) + struct.pack("<h", int(v * 64))
    return bytes([6]) + struct.pack("<f", v)


def vec3(x, y, z):
    return num(x) + num(y) + num(z)


def flag(b):
    return bytes([1 if b else 0])


def quat(wxyz=None):
    if wxyz is None:
        return flag(True)  # identity
    return flag(False) + b"".join(num(c) for c in wxyz)


def world(gravity=None, sleep=True, continuous=True):
    out = flag(gravity is not None) + (vec3(*gravity) if gravity else b"")
    out += flag(False) + flag(False)
    return out + bytes([(1 if sleep else 0) | (2 if continuous else 0)])


def body(kind, position, rotation=None, v=(0, 0, 0), w=(0, 0, 0), bullet=False, awake=True):
    flags = 1 | (0 if awake else 2) | (8 if bullet else 0)
    return (bytes([OP_BODY, kind]) + vec3(*position) + quat(rotation) + vec3(*v) + vec3(*w) + flag(False)
            + bytes([flags]))


def shape(body_index, kind, args, pose=None, friction=None, backend=0, sensor=False):
    out = bytes([OP_SHAPE, body_index, kind])
    out += flag(pose is not None) + (vec3(*pose[0]) + quat(pose[1]) if pose else b"")
    if friction is None:
        out += flag(False)
    else:
        out += flag(True) + num(1000) + num(friction) + num(0.25) + num(0) + num(0) + bytes([1])
    out += flag(False)  # default filter
    return out + bytes([(1 if sensor else 0) | 2 | (backend << 4)]) + args


def joint(kind, a, b, anchor, axis, limit=None, motor=None, spring=None, length=None):
    out = bytes([OP_JOINT, kind, a, b]) + flag(True) + vec3(*anchor) + vec3(*axis)
    flags = (2 if limit else 0) | (4 if motor else 0) | (8 if spring else 0) | (16 if length is not None else 0)
    out += bytes([flags])
    if limit:
        out += num(limit[0]) + num(limit[1]) + num(limit[2])
    if motor:
        mode, speed, target, force, omega = motor
        out += bytes([mode]) + num(speed) + num(target) + num(force) + vec3(*omega)
    if spring:
        out += num(spring[0]) + num(spring[1])
    if length is not None:
        out += num(length)
    return out


def change_body(index, what, args=b""):
    return bytes([OP_CHANGE_BODY, index, what]) + args


def steps(n):
    return bytes([OP_STEP]) * n


def seeds():
    ground = body(STATIC, (0, 0, 0)) + shape(0, PLANE, vec3(0, 0, 1) + num(0))
    yield "box_on_plane", world() + ground + body(DYNAMIC, (0, 0, 1), (0.9659, 0.2588, 0, 0)) + \
        shape(1, BOX, vec3(0.5, 0.25, 0.25), friction=0.6) + steps(30)

    yield "pendulum", world() + ground + body(DYNAMIC, (1, 0, 2)) + shape(1, SPHERE, num(0.25)) + \
        joint(REVOLUTE, 0, 1, (0, 0, 2), (0, 1, 0), limit=(-1, 1, 3), motor=(0, 1, 0, 20, (0, 0, 0))) + steps(30)

    chain = world() + ground
    for i in range(4):
        chain += body(DYNAMIC, (i, 0, 3)) + shape(i + 1, CAPSULE, num(0.1) + num(0.25), pose=((0, 0, 0), (0.7071, 0, 0.7071, 0)))
    chain += joint(FIXED, 0, 1, (0, 0, 3), (0, 0, 1), spring=(5, 0.5))
    chain += joint(PRISMATIC, 1, 2, (0.5, 0, 3), (1, 0, 0), limit=(-0.25, 0.25, 3), motor=(1, 0, 0.125, 10, (0, 0, 0)))
    chain += joint(SPHERICAL, 2, 3, (1.5, 0, 3), (1, 0, 0), limit=(-0.5, 0.5, 0.75), motor=(0, 0, 0, 5, (0, 0, 1)))
    chain += joint(DISTANCE, 3, 4, (2.5, 0, 3), (0, 0, 1), limit=(0.5, 1.5, 3), spring=(2, 0.25), length=1)
    chain += joint(TARGET, 0, 4, (3, 0, 4), (0, 0, 1), motor=(0, 0, 0, 100, (0, 0, 0)), spring=(3, 1))
    yield "joint_chain", chain + steps(30)

    tetra = bytes([1, 3]) + vec3(0, 0, 0) + vec3(1, 0, 0) + vec3(0, 1, 0) + vec3(0, 0, 1) + \
        bytes([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]) + flag(False) + flag(False)
    meshes = world() + ground
    meshes += body(DYNAMIC, (0, 0, 1)) + shape(1, MESH, bytes([0]) + flag(False))
    meshes += body(DYNAMIC, (0, 0, 2.5), (0.9239, 0.3827, 0, 0)) + shape(2, MESH, bytes([1]) + flag(True) + vec3(0.5, 0.5, 1), backend=1)
    meshes += body(DYNAMIC, (2, 0, 1)) + shape(3, MESH, bytes([2]) + flag(False) + tetra)
    yield "meshes", meshes + steps(30)

    hull = bytes([4]) + vec3(-0.5, -0.5, 0) + vec3(0.5, -0.5, 0) + vec3(0.5, 0.5, 0) + vec3(-0.5, 0.5, 0) + vec3(0, 0, 0.75)  # 1 + 4 points
    forces = world(gravity=(0, 0, -10)) + ground
    forces += body(DYNAMIC, (0, 0, 1), w=(0, 0, 2)) + shape(1, HULL, hull)
    forces += body(DYNAMIC, (2, 0, 1), v=(-1, 0, 0), bullet=True) + shape(2, CAPSULE, num(0.25) + num(0.5))
    forces += body(DYNAMIC, (0, 0, 3)) + shape(3, SPHERE, num(0.5), sensor=True)
    forces += steps(5)
    forces += change_body(1, 2, vec3(10, 0, 0) + vec3(0, 0.5, 1) + flag(True))  # force at a point
    forces += change_body(2, 4, vec3(0, 0, 3))  # torque
    forces += change_body(1, 5, vec3(0, 2, 0) + vec3(0, 0, 1))  # linear impulse
    forces += change_body(2, 0, vec3(0, 0, 5))  # linear velocity
    forces += bytes([OP_QUERY, 0]) + vec3(0, 0, 5) + vec3(0, 0, -10)
    forces += bytes([OP_QUERY, 2]) + vec3(-3, 0, 1) + vec3(6, 0, 0) + num(0.25) + quat()
    forces += steps(10)
    yield "hull_capsule_forces", forces + steps(15)

    kin = world(sleep=False) + ground
    kin += body(KINEMATIC, (0, 0, 1), v=(1, 0, 0)) + shape(1, BOX, vec3(1, 1, 0.125))
    kin += body(DYNAMIC, (0, 0, 1.5)) + shape(2, BOX, vec3(0.25, 0.25, 0.25), friction=1)
    kin += steps(5)
    kin += change_body(1, 8, vec3(0, 1, 1) + quat((0.9239, 0, 0, 0.3827)) + num(1 / 16))  # target transform
    kin += change_body(2, 10, num(2) + vec3(0, 0, 0) + num(0.125) + num(0.125) + num(0.125) + flag(False))  # mass
    kin += steps(5)
    kin += change_body(2, 9, bytes([KINEMATIC])) + steps(2) + change_body(2, 9, bytes([DYNAMIC]))
    kin += bytes([OP_CHANGE_SHAPE, 1, 3])  # destroy the dynamic box's shape
    kin += change_body(1, 17)  # destroy the kinematic body
    yield "kinematic_changes", kin + steps(30)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "world")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
