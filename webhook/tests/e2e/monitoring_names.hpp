// The metric names the monitoring kit (deploy/components/monitoring: the PrometheusRule and the
// Grafana dashboard) uses, checked against what a running server exports: an alert on a metric
// that does not exist never fires, and a panel on one stays empty, both silently.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gpua::testing {

// Families of a text exposition: name -> label names seen on its samples. Histograms also
// export <name>_bucket, _sum and _count; families without samples are listed with no labels.
struct Exported {
  std::map<std::string, std::set<std::string>> labels;
  std::set<std::string> withSamples;
};
Exported parseExposition(const std::string& text);

// The PromQL expressions of a PrometheusRule file and of a Grafana dashboard JSON file.
std::vector<std::string> ruleExpressions(const std::string& prometheusRuleYamlPath);
std::vector<std::string> dashboardExpressions(const std::string& dashboardJsonPath);

// Every gpu_admission_* name an expression uses that the server does not export, and every
// label a selector matches on that the metric's samples do not carry ("where: problem").
std::vector<std::string> metricNameProblems(const std::vector<std::string>& expressions,
                                            const Exported& exported, const std::string& where);

}  // namespace gpua::testing
