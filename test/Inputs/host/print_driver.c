// Calls the print program of print_program.mlir.
void _mlir_ciface_run(void);
int main(void) {
  _mlir_ciface_run();
  return 0;
}
