#include "ir/attrs.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

// A struct exercising every field mode and member type the op catalogue uses.
struct SampleAttrs {
  static constexpr const char* kTypeKey = "test.SampleAttrs";
  std::vector<int64_t> strides{1, 1};
  std::optional<int64_t> channels;
  double epsilon = 1e-5;
  bool center = true;
  std::string layout = "NCHW";
  DataType outDtype;
  std::vector<std::vector<int64_t>> padWidth;
  double aMin = 0;
  template <typename V>
  static void fields(V& v) {
    v("strides", &SampleAttrs::strides);
    v.alwaysShown("channels", &SampleAttrs::channels);
    v("epsilon", &SampleAttrs::epsilon);
    v("center", &SampleAttrs::center);
    v("layout", &SampleAttrs::layout);
    v("out_dtype", &SampleAttrs::outDtype);
    v("pad_width", &SampleAttrs::padWidth);
    v.required("a_min", &SampleAttrs::aMin);
  }
};

TEST(Attrs, PrintsOnlyNonDefaultAndAlwaysShownFields) {
  Attrs a = makeAttrs(SampleAttrs{.strides = {2, 2}, .aMin = -127});
  EXPECT_EQ(a->nonDefaultString(), "strides=[2, 2], channels=None, a_min=-127f");
  Attrs b = makeAttrs(SampleAttrs{.channels = 48,
                                  .epsilon = 0.001,
                                  .center = false,
                                  .layout = "NCHW1n16c",
                                  .outDtype = DataType::int32(),
                                  .padWidth = {{0, 0}, {0, 13}}});
  EXPECT_EQ(b->nonDefaultString(),
            "channels=48, epsilon=0.001f, center=False, layout=\"NCHW1n16c\", out_dtype=\"int32\", "
            "pad_width=[[0, 0], [0, 13]], a_min=0f");
}

TEST(Attrs, BuildsFromKeyValuePairsWithChecks) {
  AttrsRegistry::global().add<SampleAttrs>();
  std::string error;
  auto ok =
      makeAttrs("test.SampleAttrs",
                {{"a_min", AttrValue::floating(-1)},
                 {"strides", AttrValue::array({AttrValue::integer(3), AttrValue::integer(3)})},
                 {"out_dtype", AttrValue::string("int8")}},
                error);
  ASSERT_TRUE(ok) << error;
  const SampleAttrs* typed = attrsAs<SampleAttrs>(ok.get());
  ASSERT_NE(typed, nullptr);
  EXPECT_EQ(typed->strides, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(typed->outDtype, DataType::int8());

  EXPECT_FALSE(makeAttrs("test.SampleAttrs", {}, error));
  EXPECT_EQ(error, "required attribute 'a_min' is missing");
  EXPECT_FALSE(makeAttrs("test.SampleAttrs",
                         {{"a_min", AttrValue::integer(0)}, {"bogus", AttrValue()}}, error));
  EXPECT_EQ(error, "unknown attribute 'bogus' for test.SampleAttrs");
  EXPECT_FALSE(makeAttrs(
      "test.SampleAttrs",
      {{"a_min", AttrValue::integer(0)}, {"out_dtype", AttrValue::string("int7")}}, error));
  EXPECT_NE(error.find("unknown dtype"), std::string::npos);
  EXPECT_FALSE(makeAttrs("test.SampleAttrs",
                         {{"a_min", AttrValue::integer(0)}, {"layout", AttrValue::integer(3)}},
                         error));
  EXPECT_NE(error.find("expected a string"), std::string::npos);
  EXPECT_FALSE(makeAttrs("no.SuchAttrs", {}, error));
}

TEST(Attrs, EqualityAndHashFollowValues) {
  Attrs a = makeAttrs(SampleAttrs{.strides = {2, 2}});
  Attrs b = makeAttrs(SampleAttrs{.strides = {2, 2}});
  Attrs c = makeAttrs(SampleAttrs{.strides = {1, 2}});
  EXPECT_TRUE(a->equals(*b));
  EXPECT_EQ(a->hash(), b->hash());
  EXPECT_FALSE(a->equals(*c));
}

TEST(AttrValue, FormatsLikeTheTextFormat) {
  EXPECT_EQ(AttrValue::floating(16).str(), "16f");
  EXPECT_EQ(AttrValue::floating(1e-5).str(), "1e-05f");
  EXPECT_EQ(AttrValue::floating(2147483647.0).str(), "2.14748e+09f");
  EXPECT_EQ(AttrValue::floating(1.5, DataType::float64()).str(), "1.5f64");
  EXPECT_EQ(AttrValue::integer(16, DataType::int64()).str(), "16i64");
  EXPECT_EQ(AttrValue::boolean(true).str(), "True");
  EXPECT_EQ(AttrValue::string("a\"b").str(), "\"a\\\"b\"");
  EXPECT_EQ(AttrValue().str(), "None");
}

TEST(DictAttrs, KeepsInsertionOrder) {
  DictAttrs d;
  d.set("PartitionedFromPattern", AttrValue::string("cast_multiply_"));
  d.set("Composite", AttrValue::string("vta_output"));
  d.set("PartitionedFromPattern", AttrValue::string("x_"));
  ASSERT_EQ(d.entries().size(), 2u);
  EXPECT_EQ(d.entries()[0].first, "PartitionedFromPattern");
  EXPECT_EQ(d.find("PartitionedFromPattern")->asString(), "x_");
  d.erase("Composite");
  EXPECT_FALSE(d.has("Composite"));
}

}  // namespace
}  // namespace tessera
