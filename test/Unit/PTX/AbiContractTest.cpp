//===- AbiContractTest.cpp - Tests of the ABI contract ----------*- C++ -*-===//

#include "PTXTestInputs.h"

#include "llmptx/PTX/AbiContract.h"

#include "gtest/gtest.h"

using namespace llmptx::ptx;

namespace {

AbiContract memrefContract() {
  AbiContract c;
  c.entryName = "add";
  c.params = {{".u64", 8, 8, AbiRole::MemrefAllocatedPointer, 0, 0},
              {".u64", 8, 8, AbiRole::MemrefAlignedPointer, 0, 0},
              {".u64", 8, 8, AbiRole::MemrefOffset, 0, 0},
              {".u64", 8, 8, AbiRole::MemrefSize, 0, 0},
              {".u64", 8, 8, AbiRole::MemrefStride, 0, 0},
              {".f32", 4, 4, AbiRole::Scalar, 1, 0},
              {".b8", 2, 2, AbiRole::Scalar, 2, 0}};
  return c;
}

TEST(AbiContractTest, DescribesRoles) {
  AbiContract c = memrefContract();
  EXPECT_EQ(c.params[0].describe(), "memref allocated pointer of %arg0");
  EXPECT_EQ(c.params[2].describe(), "memref offset of %arg0");
  EXPECT_EQ(c.params[3].describe(), "memref size 0 of %arg0");
  EXPECT_EQ(c.params[4].describe(), "memref stride 0 of %arg0");
  EXPECT_EQ(c.params[5].describe(), "scalar %arg1");
  AbiParam bare{".u64", 8, 8, AbiRole::BarePointer, 3, 0};
  EXPECT_EQ(bare.describe(), "pointer %arg3");
}

TEST(AbiContractTest, SignatureIsSpelledLikeNvptx) {
  EXPECT_EQ(memrefContract().ptxSignature(),
            ".visible .entry add(\n"
            "\t.param .u64 add_param_0,\n"
            "\t.param .u64 add_param_1,\n"
            "\t.param .u64 add_param_2,\n"
            "\t.param .u64 add_param_3,\n"
            "\t.param .u64 add_param_4,\n"
            "\t.param .f32 add_param_5,\n"
            "\t.param .align 2 .b8 add_param_6[2]\n"
            ")");
  AbiContract empty;
  empty.entryName = "e";
  EXPECT_EQ(empty.ptxSignature(), ".visible .entry e()");
}

TEST(AbiContractTest, JsonRoundTrip) {
  AbiContract c = memrefContract();
  llvm::Expected<AbiContract> back = AbiContract::fromJson(c.toJson());
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->entryName, "add");
  ASSERT_EQ(back->params.size(), c.params.size());
  for (size_t i = 0; i < c.params.size(); ++i) {
    EXPECT_EQ(back->params[i].ptxType, c.params[i].ptxType);
    EXPECT_EQ(back->params[i].sizeBytes, c.params[i].sizeBytes);
    EXPECT_EQ(back->params[i].alignBytes, c.params[i].alignBytes);
    EXPECT_EQ(back->params[i].role, c.params[i].role);
    EXPECT_EQ(back->params[i].argIndex, c.params[i].argIndex);
  }
}

TEST(AbiContractTest, JsonErrorsAreValues) {
  for (const char *bad :
       {"", "[]", "{\"params\": []}", "{\"entry\": \"k\"}",
        "{\"entry\": \"k\", \"params\": [{\"type\": \"u64\"}]}",
        "{\"entry\": \"k\", \"params\": [{\"type\": \".u64\", \"role\": "
        "\"pointer\"}]}",
        "{\"entry\": \"k\", \"params\": [{\"type\": \".u64\", \"size\": "
        "-1}]}"}) {
    llvm::Expected<AbiContract> c = AbiContract::fromJson(bad);
    EXPECT_FALSE(static_cast<bool>(c)) << bad;
    if (!c) {
      EXPECT_NE(llvm::toString(c.takeError()).find("ABI contract"),
                std::string::npos);
    }
  }
  // size/align default to the type's size.
  llvm::Expected<AbiContract> c = AbiContract::fromJson(
      "{\"entry\": \"k\", \"params\": [{\"type\": \".u32\"}]}");
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_EQ(c->params[0].sizeBytes, 4u);
  EXPECT_EQ(c->params[0].alignBytes, 4u);
}

TEST(AbiContractTest, ChecksTheNvptxReference) {
  std::string text = test::readCorpus("nvptx/elementwise_add.ptx");
  std::string json = test::readCorpus("abi/elementwise_add.json");
  ASSERT_FALSE(text.empty());
  llvm::Expected<AbiContract> c = AbiContract::fromJson(json);
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_TRUE(checkAbi(text, *c).empty());

  // Swap two parameters' types: .f32 where .u64 is expected.
  std::string swapped = text;
  size_t pos = swapped.find(".param .u64 elementwise_add_param_15");
  ASSERT_NE(pos, std::string::npos);
  swapped.replace(pos, 11, ".param .f64");
  std::vector<Diagnostic> diags = checkAbi(swapped, *c);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "abi-param-type");
  EXPECT_NE(diags[0].message.find("parameter 16"), std::string::npos);
  EXPECT_NE(diags[0].message.find("scalar %arg3"), std::string::npos);

  // An alignment difference on a same-size byte array.
  AbiContract arr;
  arr.entryName = "k";
  arr.params = {{".b8", 8, 8, AbiRole::Scalar, 0, 0}};
  diags = checkAbi(".version 8.0\n.target sm_90\n.address_size 64\n"
                   ".visible .entry k(.param .align 4 .b8 k_param_0[8])\n"
                   "{\n\tret;\n}\n",
                   arr);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "abi-param-align");
}

} // namespace
