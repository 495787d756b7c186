// A two-stage MLP head: y = softmax(gelu(x W + b)) over the rows.
#map_bias = affine_map<(i, j) -> (j)>
#map_id = affine_map<(i, j) -> (i, j)>
#map_row = affine_map<(i, j) -> (i)>
func.func @mlp(%x: tensor<4096x1024xf32>, %w: tensor<1024x4096xf32>,
               %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678118654752 : f32
  %empty = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4096x1024xf32>, tensor<1024x4096xf32>)
                      outs(%acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %h = linalg.generic {indexing_maps = [#map_id, #map_bias, #map_id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%empty : tensor<4096x4096xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %s = arith.addf %v, %bias : f32
    %t = arith.mulf %s, %rsqrt2 : f32
    %e = math.erf %t : f32
    %p = arith.addf %e, %one : f32
    %q = arith.mulf %s, %p : f32
    %g = arith.mulf %q, %half : f32
    linalg.yield %g : f32
  } -> tensor<4096x4096xf32>
  %rows = tensor.empty() : tensor<4096xf32>
  %maxinit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<4096xf32>) -> tensor<4096xf32>
  %max = linalg.generic {indexing_maps = [#map_id, #map_row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<4096x4096xf32>) outs(%maxinit : tensor<4096xf32>) {
  ^bb0(%v: f32, %m: f32):
    %r = arith.maximumf %v, %m : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  %suminit = linalg.fill ins(%zero : f32) outs(%rows : tensor<4096xf32>) -> tensor<4096xf32>
  %sum = linalg.generic {indexing_maps = [#map_id, #map_row, #map_row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%h, %max : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%suminit : tensor<4096xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %s : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  %y = linalg.generic {indexing_maps = [#map_id, #map_row, #map_row, #map_id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %max, %sum : tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) outs(%empty : tensor<4096x4096xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %r = arith.divf %e, %s : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
