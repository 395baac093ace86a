#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "report/prometheus.h"

using namespace fabdiag;

TEST_CASE("prometheus: HELP, TYPE and samples in order, families without samples left out") {
  std::vector<MetricFamily> fams = {
      {"fabdiag_phy_error_total", "PHY errors", MetricType::kCounter,
       {{{{"device", "mlx5_0"}, {"port", "1"}, {"netdev", "ens1f0np0"}, {"counter", "symbol_error"}}, 12},
        {{{"device", "eth0"}, {"port", ""}, {"netdev", "eth0"}, {"counter", "rx_crc_errors"}}, 0}}},
      {"fabdiag_empty", "nothing", MetricType::kGauge, {}},
      {"fabdiag_optics_temperature_celsius", "Module temperature", MetricType::kGauge,
       {{{{"netdev", "eth0"}}, 41.5}}},
      {"fabdiag_counters_read_errors", "gaps", MetricType::kGauge, {{{}, 0}}},
  };
  auto out = render_prometheus(fams);
  REQUIRE(out.ok());
  CHECK(*out ==
        "# HELP fabdiag_phy_error_total PHY errors\n"
        "# TYPE fabdiag_phy_error_total counter\n"
        "fabdiag_phy_error_total{device=\"mlx5_0\",port=\"1\",netdev=\"ens1f0np0\",counter=\"symbol_error\"} 12\n"
        "fabdiag_phy_error_total{device=\"eth0\",port=\"\",netdev=\"eth0\",counter=\"rx_crc_errors\"} 0\n"
        "# HELP fabdiag_optics_temperature_celsius Module temperature\n"
        "# TYPE fabdiag_optics_temperature_celsius gauge\n"
        "fabdiag_optics_temperature_celsius{netdev=\"eth0\"} 41.5\n"
        "# HELP fabdiag_counters_read_errors gaps\n"
        "# TYPE fabdiag_counters_read_errors gauge\n"
        "fabdiag_counters_read_errors 0\n");
}

TEST_CASE("prometheus: escaping of help and label values, special and large values") {
  std::vector<MetricFamily> fams = {
      {"m", "a \\ b\nc", MetricType::kGauge,
       {{{{"l", "q\"x\\y\nz"}}, std::numeric_limits<double>::quiet_NaN()},
        {{{"l", "inf"}}, std::numeric_limits<double>::infinity()},
        {{{"l", "ninf"}}, -std::numeric_limits<double>::infinity()},
        {{{"l", "big"}}, 18446744073709551615.0},
        {{{"l", "small"}}, 0.000316},
        {{{"l", "int"}}, 4294967296.0}}}};
  auto out = render_prometheus(fams);
  REQUIRE(out.ok());
  CHECK(out->find("# HELP m a \\\\ b\\nc\n") != std::string::npos);
  CHECK(out->find("m{l=\"q\\\"x\\\\y\\nz\"} NaN\n") != std::string::npos);
  CHECK(out->find("m{l=\"inf\"} +Inf\n") != std::string::npos);
  CHECK(out->find("m{l=\"ninf\"} -Inf\n") != std::string::npos);
  CHECK(out->find("m{l=\"big\"} 18446744073709551616\n") != std::string::npos);
  CHECK(out->find("m{l=\"small\"} 0.000316\n") != std::string::npos);
  CHECK(out->find("m{l=\"int\"} 4294967296\n") != std::string::npos);
}

TEST_CASE("prometheus: invalid names, duplicate families and duplicate series are refused") {
  auto bad_name = render_prometheus({{"9lives", "h", MetricType::kGauge, {{{}, 1}}}});
  REQUIRE_FALSE(bad_name.ok());
  CHECK(bad_name.error().code == ErrorCode::kInternal);
  CHECK_FALSE(render_prometheus({{"m-x", "h", MetricType::kGauge, {{{}, 1}}}}).ok());
  CHECK_FALSE(render_prometheus({{"m", "h", MetricType::kGauge, {{{{"bad-label", "v"}}, 1}}}}).ok());
  CHECK_FALSE(render_prometheus({{"m", "h", MetricType::kGauge, {{{{"__reserved", "v"}}, 1}}}}).ok());
  CHECK_FALSE(render_prometheus({{"m", "h", MetricType::kGauge, {{{}, 1}}},
                                 {"m", "h", MetricType::kGauge, {{{}, 2}}}})
                  .ok());
  auto dup = render_prometheus({{"m", "h", MetricType::kGauge, {{{{"a", "1"}}, 1}, {{{"a", "1"}}, 2}}}});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message.find("duplicate series") != std::string::npos);
  CHECK(is_valid_metric_name("fabdiag:rule_total"));
  CHECK_FALSE(is_valid_label_name("1a"));
}

TEST_CASE("prometheus: integral values are written as \"%.0f\" writes them, others shortest") {
  const double values[] = {0.0, -0.0, 1.0, -1.0, 42.0, 4294967295.0, 1e15, -1e15,
                           9007199254740991.0, 123456789012.0};
  for (double v : values) {
    CAPTURE(v);
    MetricFamily f{"fabdiag_x", "x", MetricType::kGauge, {MetricSample{{}, v}}};
    auto text = render_prometheus({f});
    REQUIRE(text);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    CHECK(text->find("\nfabdiag_x " + std::string(buf) + "\n") != std::string::npos);
  }
  MetricFamily g{"fabdiag_y", "y", MetricType::kGauge,
                 {MetricSample{{{"device", "mlx5_0/1"}}, 0.25}, MetricSample{{{"device", "b"}}, 1e300}}};
  auto text = render_prometheus({g});
  REQUIRE(text);
  CHECK(text->find("fabdiag_y{device=\"mlx5_0/1\"} 0.25\n") != std::string::npos);
  CHECK(text->find("fabdiag_y{device=\"b\"} 1e+300\n") != std::string::npos);
}
