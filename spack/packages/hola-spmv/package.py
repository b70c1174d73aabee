# Spack recipe for Hola (add the repository with `spack repo add ./spack`).
import os

import spack.build_systems.cmake
from spack.package import *


class HolaSpmv(CMakePackage, CudaPackage):
    """Hola: fast sparse matrix-vector products (CPU with OpenMP, GPU with CUDA) behind a
    plugin interface, with adapters for PETSc (the holaaij / holaaijcusparse matrix types),
    Trilinos Tpetra (HolaOperator) and HYPRE (Krylov solver matvec)."""

    homepage = "https://github.com/hola-spmv/hola"
    git = "https://github.com/hola-spmv/hola.git"
    url = "https://github.com/hola-spmv/hola/archive/refs/tags/v0.1.0.tar.gz"

    maintainers("hola-spmv")

    # Releases are tags vX.Y.Z of the repository (the tarball URL above, one per tag). No release
    # has been tagged yet: the first one adds `version("0.1.0", sha256=...)` here with the
    # checksum of its tarball (`spack checksum hola-spmv 0.1.0`). Until then: the branch.
    version("main", branch="main")

    variant(
        "petsc",
        default=True,
        description="Build the PETSc adapter (holaaij; also holaaijcusparse when Hola has +cuda "
        "and PETSc has CUDA) and petsc_ksp",
    )
    variant("trilinos", default=False, description="Build the Tpetra adapter")
    variant("hypre", default=False, description="Build the HYPRE adapter")
    variant("mpi", default=True, description="Build with MPI (needed by the PETSc adapter)")
    variant("tests", default=False, description="Build the GoogleTest suites")
    variant(
        "shared",
        default=False,
        description="Build hola_kernels and hola_plugin as shared libraries (the project default "
        "and tested build is static; hola.pc carries a run path for shared ones)",
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")
    depends_on("pkgconfig", type="build")  # CMake finds PETSc through its pkg-config file

    # OpenMP comes with the compiler (find_package(OpenMP) in CMakeLists.txt).

    # The kernels are built and tested with CUDA 13 only. CudaPackage already depends on cuda when
    # +cuda; the lower bound is a conflict rather than depends_on("cuda@13:") because Spack 0.23's
    # builtin cuda package lists no 13.x version (`spack audit packages` rejects a dependency no
    # known version satisfies): with 0.23, CUDA 13 comes as an external (packages.yaml).
    conflicts("^cuda@:12", when="+cuda", msg="Hola's CUDA kernels need CUDA 13 or newer")
    depends_on("mpi", when="+mpi")
    depends_on("petsc+mpi", when="+petsc")
    depends_on("trilinos+mpi+tpetra+belos+ifpack2", when="+trilinos")
    depends_on("hypre+mpi", when="+hypre")
    # +cuda builds Hola's GPU kernels; it does not ask for CUDA in PETSc, HYPRE or Trilinos. A CPU
    # PETSc gets holaaij (with any Hola kernel behind it); holaaijcusparse is built only when the
    # PETSc in the spec has CUDA (CMakeLists.txt reads petscconf.h), and needs PETSc 3.20 or newer
    # for the GPU matrix type's interface.
    conflicts(
        "^petsc@:3.19+cuda",
        when="+petsc+cuda",
        msg="holaaijcusparse (Hola +cuda with a CUDA PETSc) needs PETSc 3.20 or newer",
    )

    depends_on("googletest", type=("build", "link"), when="+tests")
    depends_on("cli11", type="build")
    depends_on("nlohmann-json", type="build")

    conflicts("+petsc", when="~mpi", msg="the PETSc adapter needs +mpi")
    conflicts("+trilinos", when="~mpi", msg="the Tpetra adapter needs +mpi")
    conflicts("+hypre", when="~mpi", msg="the HYPRE adapter needs +mpi")

    # Stand-alone tests (`spack test run hola-spmv`): the consumer projects of tests/consumer,
    # configured, built and run against the installed prefix, one for the kernels and the C API
    # and one for each enabled adapter; and every installed program started with --help. They
    # need no test matrices. CMakeBuilder.copy_consumer_sources caches tests/consumer at install.
    def _consumer(self, folder, program, *extra):
        src = join_path(self.test_suite.current_test_cache_dir, "tests", "consumer", folder)
        build = join_path(self.test_suite.stage, "consumer-" + folder)
        cmake = which(self.spec["cmake"].prefix.bin.cmake)
        cmake(
            "-S",
            src,
            "-B",
            build,
            f"-DCMAKE_PREFIX_PATH={self.prefix}",
            f"-DCMAKE_C_COMPILER={self.compiler.cc}",
            f"-DCMAKE_CXX_COMPILER={self.compiler.cxx}",
            *self._consumer_dependency_args(),
            *extra,
        )
        cmake("--build", build)
        which(join_path(build, program))()

    def _consumer_dependency_args(self):
        """Where the consumers find what Hola was built with: MPI's compiler wrappers, pkg-config,
        the CUDA toolkit (find_dependency(CUDAToolkit) in HolaConfig.cmake), from the spec rather
        than from PATH."""
        spec = self.spec
        args = []
        if spec.satisfies("+mpi"):
            args.append(f"-DMPI_HOME={spec['mpi'].prefix}")
        if "pkgconfig" in spec:
            args.append(f"-DPKG_CONFIG_EXECUTABLE={spec['pkgconfig'].prefix.bin}/pkg-config")
        if spec.satisfies("+cuda"):
            args.append(f"-DCUDAToolkit_ROOT={spec['cuda'].prefix}")
        return args

    def test_consumer_kernels(self):
        """build and run a CMake consumer of hola::plugin (C++ and the C API)"""
        self._consumer("project", "hola_consumer")

    def test_consumer_petsc(self):
        """build and run a consumer of the PETSc adapter (holaaij)"""
        if not self.spec.satisfies("+petsc"):
            raise SkipTest("built without +petsc")
        pcdir = join_path(self.spec["petsc"].prefix.lib, "pkgconfig")
        self._consumer("petsc", "hola_petsc_consumer", f"-DPETSC_PC_DIR={pcdir}")

    def test_consumer_tpetra(self):
        """build and run a consumer of the Tpetra adapter (HolaOperator)"""
        if not self.spec.satisfies("+trilinos"):
            raise SkipTest("built without +trilinos")
        self._consumer(
            "tpetra",
            "hola_tpetra_consumer",
            f"-DCMAKE_PREFIX_PATH={self.prefix};{self.spec['trilinos'].prefix}",
        )

    def test_consumer_hypre(self):
        """build and run a consumer of the HYPRE adapter"""
        if not self.spec.satisfies("+hypre"):
            raise SkipTest("built without +hypre")
        # HYPRE's autotools build (Spack's hypre package, Debian's libhypre-dev) installs no CMake
        # package: the consumer gets HYPRE's header folder (the one with the internal headers the
        # adapter needs) and library, as cmake/HolaHypre.cmake finds them.
        hypre = self.spec["hypre"]
        hdrs = find_headers("_hypre_parcsr_ls", hypre.prefix.include, recursive=True)
        if not hdrs:
            raise RuntimeError(f"_hypre_parcsr_ls.h not found under {hypre.prefix.include}")
        self._consumer(
            "hypre",
            "hola_hypre_consumer",
            f"-DHOLA_HYPRE_INCLUDE_DIR={os.path.dirname(hdrs[0])}",
            f"-DHOLA_HYPRE_LIBRARY={hypre.libs[0]}",
        )

    def test_programs_start(self):
        """every installed program starts without LD_LIBRARY_PATH and prints its help"""
        # Every file in bin, as install_programs_start (tests/consumer/run_consumer.cmake) does:
        # a fixed list of names missed the programs added since (hola-bfs, hola-batched-cg, ...).
        names = sorted(os.listdir(self.prefix.bin)) if os.path.isdir(self.prefix.bin) else []
        assert names, f"no programs installed in {self.prefix.bin}"
        for name in names:
            path = join_path(self.prefix.bin, name)
            with test_part(self, f"test_programs_start_{name}", purpose=f"{name} --help"):
                which(path)("--help", output=str, error=str)  # raises on a non-zero exit


class CMakeBuilder(spack.build_systems.cmake.CMakeBuilder):
    # With a builder class in package.py, Spack 0.23 runs the install callbacks of the builder,
    # not those of the package: a run_after("install") on HolaSpmv never ran (no cached sources).
    @run_after("install")
    def copy_consumer_sources(self):
        cache_extra_test_sources(self.pkg, [join_path("tests", "consumer")])

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("HOLA_ENABLE_CUDA", "cuda"),
            self.define("HOLA_WITH_PETSC", "ON" if spec.satisfies("+petsc") else "OFF"),
            self.define("HOLA_WITH_TPETRA", "ON" if spec.satisfies("+trilinos") else "OFF"),
            self.define("HOLA_WITH_HYPRE", "ON" if spec.satisfies("+hypre") else "OFF"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define_from_variant("HOLA_BUILD_TESTS", "tests"),
            self.define("HOLA_BUILD_DEMOS", True),
            # Spack sets CMAKE_INSTALL_RPATH to <prefix>/lib only, which replaces the project's
            # $ORIGIN run path (CMakeLists.txt sets it only when the variable is undefined): keep
            # both, so the installed tree, and the scratch installs of the install_* tests run by
            # check() before <prefix> exists, find Hola's own libraries.
            self.define(
                "CMAKE_INSTALL_RPATH",
                ["$ORIGIN/../lib", "$ORIGIN", self.pkg.prefix.lib, self.pkg.prefix.lib64],
            ),
        ]
        if spec.satisfies("+cuda"):
            cuda_arch = spec.variants["cuda_arch"].value
            if "none" not in cuda_arch:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(cuda_arch)))
        return args

    def check(self):
        """`spack install --test=root`: the test suites in the builder's build directory (the
        GPU tests excluded: build machines have no GPU; without a folder of real matrices their
        tests report skipped)."""
        if self.spec.satisfies("~tests"):
            return
        ctest = Executable(self.spec["cmake"].prefix.bin.ctest)
        args = ["--output-on-failure", "-LE", "gpu"]
        with working_dir(self.build_directory):
            ctest(*args)
