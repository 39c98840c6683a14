#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The profile kept in the source tree (pgo/) fits the library's sources.

- pgo/PROFILE's checksum is that of the files in pgo/profile/.
- A build that meets the profile's conditions (-Dpgo auto or tree, the
  profile's gcc version, -O2, no sanitizer or coverage, the build
  directory directly inside the source tree) compiles every object of
  the library with it; any other build skips the rest (status 77).
- Each of the library's objects compiles again, exactly as the build
  compiles it (into a directory of its own in the build directory), with
  its profile file found and matching: no -Wcoverage-mismatch (made an
  error here) and no "profile count data file not found".  A library source changed since the profile was made (its
  code, or only where its functions start) fails here, saying which: make
  the profile again (make pgo-profile).  Every file of the profile belongs
  to an object of the library.

    test-profile.py SOURCE_ROOT BUILD_ROOT
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile

SRC, BUILD = (os.path.realpath(a) for a in sys.argv[1:3])
PGO = os.path.join(SRC, "pgo")
PROF = os.path.join(PGO, "profile")
failed = []


def fail(msg):
    print("FAIL: " + msg)
    failed.append(msg)


def stamp():
    keys = {}
    with open(os.path.join(PGO, "PROFILE"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) == 2 and not line.startswith("#"):
                keys[w[0]] = w[1]
    return keys


def files_sum():
    """sha256 of `sha256sum -- *` in pgo/profile (scripts/pgo.sh)."""
    lines = ""
    for name in sorted(os.listdir(PROF)):
        with open(os.path.join(PROF, name), "rb") as f:
            lines += "%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(), name)
    return hashlib.sha256(lines.encode()).hexdigest()


def build_options():
    out = subprocess.run(["meson", "introspect", "--buildoptions", BUILD],
                         capture_output=True, text=True, check=True).stdout
    return {o["name"]: o["value"] for o in json.loads(out)}


def recompile(cmd, tmp):
    """The object's compile command, its output under tmp, strict."""
    args = shlex.split(cmd["command"])
    out, skip, argv = None, False, []
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("-MQ", "-MF", "-o"):
            skip = True
            if a == "-o":
                out = args[i + 1]
            continue
        # (-Werror off: -Wmissing-profile also names the functions the
        # training never ran, which the profile leaves out, and the calls
        # to them; only coverage mismatches are made errors)
        if a in ("-MD", "-Werror", "-Wno-coverage-mismatch",
                 "-Wno-missing-profile") \
           or a.startswith("-fprofile-prefix-path="):
            continue
        argv.append(a)
    # (gcc names the .gcda by the object's path only when that path is
    # relative: tmp is inside the build directory, which stays the
    # working directory, so the sources and includes are the build's)
    os.makedirs(os.path.join(tmp, os.path.dirname(out)), exist_ok=True)
    argv += ["-o", os.path.relpath(os.path.join(tmp, out), BUILD),
             "-fprofile-prefix-path=" + tmp,
             "-Werror=coverage-mismatch", "-Wmissing-profile",
             "-fdiagnostics-color=never"]
    r = subprocess.run(argv, cwd=BUILD, capture_output=True, text=True)
    rc = r.returncode
    if "profile count data file not found" in r.stderr:
        rc = rc or 1
    return out, rc, r.stderr


def main():
    keys = stamp()
    if keys.get("sha256") != files_sum():
        fail("pgo/PROFILE's checksum is not that of pgo/profile/'s files")
    with open(os.path.join(BUILD, "compile_commands.json"),
              encoding="utf-8") as f:
        lib = [c for c in json.load(f)
               if c["output"].startswith("libpmrdma.so.")]
    compiler = shlex.split(lib[0]["command"])[0]
    version = subprocess.run([compiler, "-dumpfullversion"],
                             capture_output=True, text=True).stdout.strip()
    opt = build_options()
    why = None
    if opt["pgo"] not in ("auto", "tree"):
        why = "-Dpgo=%s" % opt["pgo"]
    elif version != keys.get("gcc"):
        why = "compiler %s %s, the profile's gcc %s" % (
            compiler, version or "(no gcc)", keys.get("gcc"))
    elif opt["optimization"] != "2":
        why = "-O%s" % opt["optimization"]
    elif opt["b_sanitize"] != "none" or opt["b_coverage"]:
        why = "a sanitizer or coverage build"
    elif os.path.dirname(BUILD) != SRC:
        why = "the build directory is not directly inside the source tree"
    if why is not None:
        print("skip: this build does not use the tree's profile: " + why)
        return 1 if failed else 77
    use = "-fprofile-use=" + PROF
    unused = [c["output"] for c in lib if use not in shlex.split(c["command"])]
    if unused:
        fail("built without the tree's profile: " + ", ".join(unused))
    want = {c["output"][:-2].replace("/", "#") + ".gcda" for c in lib}
    extra = sorted(set(os.listdir(PROF)) - want)
    if extra:
        fail("profile files of no object of the library: " + ", ".join(extra))
    with tempfile.TemporaryDirectory(prefix="pgo-check.", dir=BUILD) as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as ex:
        for out, rc, err in ex.map(lambda c: recompile(c, tmp), lib):
            if rc != 0:
                fail("%s does not fit the profile: make pgo-profile\n%s"
                     % (out, err.strip()))
            else:
                print("ok: %s compiles with its profile, matching" % out)
    return 1 if failed else 0


sys.exit(main())
