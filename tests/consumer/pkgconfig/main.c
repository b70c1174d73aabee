/* A C program built with nothing but `pkg-config --cflags --libs hola` (no CMake, no C++ driver):
 * the C API of the installed static libraries, run without LD_LIBRARY_PATH. */
int run_c_api(void);

int main(void) { return run_c_api(); }
