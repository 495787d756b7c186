#h = #llmgen.harness<sizes = ["N"], timing = [1000], facts = {divisible = {N = 64}}>
gpu.module @m attributes {h = #h} {}
// -----
#h = #llmgen.harness<sizes = ["N"], timing = [0]>
gpu.module @m attributes {h = #h} {}
