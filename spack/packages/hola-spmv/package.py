# Spack recipe for Hola (add the repository with `spack repo add ./spack`).

from spack.package import *


class HolaSpmv(CMakePackage, CudaPackage):
    """Hola: fast sparse matrix-vector products (CPU with OpenMP, GPU with CUDA) behind a
    plugin interface, with adapters for PETSc (the holaaij / holaaijcusparse matrix types),
    Trilinos Tpetra (HolaOperator) and HYPRE (Krylov solver matvec)."""

    homepage = "https://example.org/hola"
    git = "https://example.org/hola/hola.git"

    version("main", branch="main")

    variant(
        "petsc",
        default=True,
        description="Build the PETSc adapter (holaaij; holaaijcusparse with +cuda) and petsc_ksp",
    )
    variant("mpi", default=True, description="Build with MPI (needed by the PETSc adapter)")
    variant("shared", default=True, description="Build shared libraries")
    variant("tests", default=False, description="Build the GoogleTest suites")
    variant("trilinos", default=False, description="Build the Tpetra adapter")
    variant("hypre", default=False, description="Build the HYPRE adapter")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")

    # OpenMP comes with the compiler (find_package(OpenMP) in CMakeLists.txt).

    depends_on("cuda@13:", when="+cuda")
    depends_on("mpi", when="+mpi")
    depends_on("petsc+mpi", when="+petsc")
    depends_on("trilinos+mpi+tpetra+belos+ifpack2+muelu", when="+trilinos")
    depends_on("hypre+mpi", when="+hypre")
    # GPU builds: the host libraries use the same CUDA architecture as Hola.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"petsc+cuda cuda_arch={arch}", when=f"+petsc+cuda cuda_arch={arch}")
        depends_on(f"hypre+cuda cuda_arch={arch}", when=f"+hypre+cuda cuda_arch={arch}")
        depends_on(f"trilinos+cuda cuda_arch={arch}", when=f"+trilinos+cuda cuda_arch={arch}")

    depends_on("googletest", type=("build", "link"), when="+tests")
    depends_on("cli11", type="build")
    depends_on("nlohmann-json", type="build")

    conflicts("+petsc", when="~mpi", msg="the PETSc adapter needs +mpi")
    conflicts("+trilinos", when="~mpi", msg="the Tpetra adapter needs +mpi")
    conflicts("+hypre", when="~mpi", msg="the HYPRE adapter needs +mpi")

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
        ]
        if spec.satisfies("+cuda"):
            cuda_arch = spec.variants["cuda_arch"].value
            if "none" not in cuda_arch:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(cuda_arch)))
        return args

    def check(self):
        if self.spec.satisfies("~tests"):
            return
        ctest = Executable(self.spec["cmake"].prefix.bin.ctest)
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-LE", "gpu")

    def test_demo(self):
        """run a demo on a 16^3 Poisson matrix"""
        if self.spec.satisfies("+petsc"):
            exe = which(self.prefix.bin.petsc_ksp)
            out = exe("-n", "16", "-compare", output=str.split, error=str.split)
        else:
            exe = which(self.prefix.bin.join("hola-spmv-demo"))
            out = exe("-n", "16", output=str.split, error=str.split)
        assert out, "the demo printed nothing"
