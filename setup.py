"""Build the compiled top-k kernel; the package metadata is in pyproject.toml.

The kernel spreads rows over OpenMP threads when the compiler that builds it
can compile and link an OpenMP program, and runs them on one thread when it
cannot. The environment variable ``SKLEARN_RANKK_OPENMP`` decides:

* unset or ``auto``: probe the compiler (``-fopenmp`` for gcc and clang,
  ``/openmp`` for MSVC, ``-Xpreprocessor -fopenmp -lomp`` for Apple clang with
  libomp, whose include and library folders come from ``CPPFLAGS`` and
  ``LDFLAGS``);
* ``0``: build the serial kernel without probing;
* ``1``: require OpenMP; the build fails when the probe does.

The kernel is several translation units (sklearn_rankk/_core/kernel.hpp);
they are compiled in parallel, as many at once as the build may use CPUs, or
as ``SKLEARN_RANKK_BUILD_JOBS`` says (1: one after the other).

``sklearn_rankk._core._kernel.openmp_enabled()`` (and
``sklearn_rankk.show_versions()``) tell which kernel was built.
"""

import contextlib
import glob
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ENV = "SKLEARN_RANKK_OPENMP"
JOBS = "SKLEARN_RANKK_BUILD_JOBS"

PROBE = """\
#include <omp.h>

int rankk_openmp_probe(void) {
    int n = 0;
#pragma omp parallel for reduction(+ : n)
    for (int i = 0; i < 8; i++) n += i;
    return n + omp_get_max_threads();
}
"""


def openmp_request():
    """True, False or None (probe), from the environment variable."""
    value = os.environ.get(ENV, "auto").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    sys.exit(f"{ENV} must be 0, 1 or auto; got {value!r}.")


def openmp_candidates(compiler):
    """(compile flags, link flags) to try, in order, for this compiler."""
    if compiler.compiler_type == "msvc":
        # vcomp is linked by the /openmp objects themselves.
        return [(["/openmp"], [])]
    candidates = [(["-fopenmp"], ["-fopenmp"])]
    if sys.platform == "darwin":
        # Apple clang has no -fopenmp driver flag: the preprocessor takes it,
        # and libomp (e.g. Homebrew's) is linked explicitly.
        candidates.append((["-Xpreprocessor", "-fopenmp"], ["-lomp"]))
    return candidates


@contextlib.contextmanager
def quiet(log_path):
    """Send this process's stdout and stderr (the compiler's too) to a file."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def probe_openmp(compiler):
    """The first (compile, link) flags that build and link an OpenMP object.

    The probe is compiled as C++ and linked as a shared object by the very
    compiler and linker commands that build the extension (with CFLAGS,
    CPPFLAGS, LDFLAGS, ARCHFLAGS), so what it finds is what the kernel gets.
    Returns ``(flags, log)``: flags are None when no candidate works.
    """
    tmp = tempfile.mkdtemp(prefix="sklearn_rankk_openmp_")
    try:
        log_path = os.path.join(tmp, "probe.log")
        source = os.path.join(tmp, "probe.cpp")
        with open(source, "w") as f:
            f.write(PROBE)
        for n, (cflags, ldflags) in enumerate(openmp_candidates(compiler)):
            out = os.path.join(tmp, str(n))
            try:
                with quiet(log_path):
                    objects = compiler.compile(
                        [source], output_dir=out, extra_postargs=cflags
                    )
                    compiler.link_shared_object(
                        objects,
                        "probe" + (compiler.shared_lib_extension or ".so"),
                        output_dir=out,
                        extra_postargs=ldflags,
                        target_lang="c++",
                    )
            except Exception as exc:  # CompileError, LinkError and kin
                with open(log_path, "a") as log:
                    log.write(f"{' '.join(cflags)} / {' '.join(ldflags)}: {exc}\n")
                continue
            return (cflags, ldflags), ""
        with open(log_path, errors="replace") as log:
            return None, log.read()
    finally:
        # (not TemporaryDirectory: a file Windows still holds must not fail
        # the build, and ignore_cleanup_errors needs Python 3.10)
        shutil.rmtree(tmp, ignore_errors=True)


def build_jobs():
    """Compiler processes to run at once: SKLEARN_RANKK_BUILD_JOBS, or the CPUs."""
    value = os.environ.get(JOBS, "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            sys.exit(f"{JOBS} must be a positive integer; got {value!r}.")
        return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def compile_in_parallel(compiler, jobs):
    """Make ``compiler.compile`` run its sources' compiles ``jobs`` at a time.

    distutils compiles an extension's sources one after the other; the
    kernel's are several translation units of about equal weight
    (kernel.hpp), so on several cores they build in a fraction of the time.
    The same steps as the base class's ``compile``, its per-source
    ``_compile`` calls in threads (each waits on its compiler process). Only
    for a compiler class that keeps the base ``compile`` and implements
    ``_compile`` (gcc, clang, MinGW); MSVC's has a ``compile`` of its own
    (and the base ``_compile`` does nothing), so it stays serial.
    """

    def owner(name):  # the class of the compiler's MRO that defines name
        return next(c for c in type(compiler).__mro__ if name in vars(c))

    base = type(compiler).__mro__[-2]  # distutils' base compiler class (under object)
    if jobs < 2 or owner("compile") is not base or owner("_compile") is base:
        return
    serial = compiler.compile

    def compile(
        sources,
        output_dir=None,
        macros=None,
        include_dirs=None,
        debug=False,
        extra_preargs=None,
        extra_postargs=None,
        depends=None,
    ):
        if len(sources) < 2:
            return serial(
                sources,
                output_dir,
                macros,
                include_dirs,
                debug,
                extra_preargs,
                extra_postargs,
                depends,
            )
        macros, objects, postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs
        )
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj):
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, postargs, pp_opts)

        todo = [obj for obj in objects if obj in build]
        with ThreadPoolExecutor(min(jobs, len(todo) or 1)) as pool:
            # (list: the first compile error is raised here)
            list(pool.map(one, todo))
        return objects

    compiler.compile = compile


class BuildExt(build_ext):
    """build_ext with per-compiler flags, the OpenMP probe, parallel compiles."""

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        compile_in_parallel(self.compiler, build_jobs())
        # No contraction of a * b + c into one fused multiply-add: the
        # kernel's values are then the same bits on every machine (GCC
        # contracts by default where the target has FMA, e.g. aarch64 or
        # -march=native; MSVC keeps its own default).
        # No debug information (-g0 overrides the -g of Python's own CFLAGS):
        # with it the kernel's object is 90 MB instead of 8 and its compile
        # takes 40% longer, for symbols no user of the wheel debugs with.
        optimize = ["/O2"] if msvc else ["-O3", "-ffp-contract=off", "-g0"]
        # The kernel is C++17 (if constexpr); clang before 16 and MSVC
        # default to C++14.
        standard = ["/std:c++17"] if msvc else ["-std=c++17"]
        request = openmp_request()
        openmp = None
        if request is not False:
            openmp, log = probe_openmp(self.compiler)
            if openmp is None:
                tried = "; ".join(
                    " ".join(dict.fromkeys(cf + lf))
                    for cf, lf in openmp_candidates(self.compiler)
                )
                message = f"the compiler cannot build OpenMP code (tried: {tried})"
                if request:
                    sys.exit(f"{ENV}=1, but {message}:\n{log[-3000:]}")
                print(f"sklearn_rankk: {message}; building the serial kernel.")
        else:
            print(f"sklearn_rankk: {ENV}=0; building the serial kernel.")
        if openmp is None:
            cflags, ldflags = [], []
        else:
            cflags, ldflags = openmp
            flags = " ".join(dict.fromkeys(cflags + ldflags))
            print(f"sklearn_rankk: building the kernel with OpenMP ({flags}).")
        for ext in self.extensions:
            ext.extra_compile_args = [*standard, *optimize, *cflags]
            ext.extra_link_args = list(ldflags)
        # setuptools skips an extension whose output is newer than its
        # sources: rebuild when the compiler or the flags differ from the
        # previous build's (e.g. SKLEARN_RANKK_OPENMP changed).
        stamp = os.path.join(self.build_temp, "sklearn_rankk_flags.txt")
        config = repr(
            (
                self.compiler.compiler_type,
                getattr(self.compiler, "compiler_so", None),
                getattr(self.compiler, "compiler_cxx", None),
                standard,
                optimize,
                cflags,
                ldflags,
            )
        )
        try:
            with open(stamp) as f:
                previous = f.read()
        except OSError:
            previous = None
        if previous != config:
            self.force = True
        super().build_extensions()
        os.makedirs(self.build_temp, exist_ok=True)
        with open(stamp, "w") as f:
            f.write(config)


extensions = [
    Extension(
        "sklearn_rankk._core._kernel",
        # Cython's module and the kernel's own translation units (kernel.hpp),
        # the heaviest first: build_jobs() compile at once.
        [
            "sklearn_rankk/_core/kernel_f64.cc",
            "sklearn_rankk/_core/kernel_f32.cc",
            "sklearn_rankk/_core/kernel_views.cc",
            "sklearn_rankk/_core/_kernel.pyx",
        ],
        include_dirs=["sklearn_rankk/_core"],
        # Every header of the kernel and the pieces _kernel.pyx includes (a
        # change to any rebuilds it).
        depends=sorted(
            glob.glob("sklearn_rankk/_core/*.h*")
            + glob.glob("sklearn_rankk/_core/*.pxi")
        ),
        language="c++",
    )
]

setup(
    ext_modules=cythonize(extensions, compiler_directives={"language_level": 3}),
    cmdclass={"build_ext": BuildExt},
)
