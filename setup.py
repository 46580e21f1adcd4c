"""Build the compiled top-k kernel; all metadata is in setup.cfg."""

import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

openmp = ["-fopenmp"] if sys.platform.startswith("linux") else []

extensions = [
    Extension(
        "sklearn_rankk._core._kernel",
        ["sklearn_rankk/_core/_kernel.pyx"],
        include_dirs=["sklearn_rankk/_core"],
        depends=[
            "sklearn_rankk/_core/kernel.hpp",
            "sklearn_rankk/_core/_simd.h",
            "sklearn_rankk/_core/_portable.h",
        ],
        language="c++",
        extra_compile_args=["-O3", *openmp],
        extra_link_args=openmp,
    )
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": 3}))
