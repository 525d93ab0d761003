// Field-by-field comparison of scenarios, for tests of readers, writers and generators that must
// reproduce a scenario exactly (floats bit-exact).
#ifndef ARCHIMEDES_TESTS_SUPPORT_SAME_SCENARIO_H_
#define ARCHIMEDES_TESTS_SUPPORT_SAME_SCENARIO_H_

#include <gtest/gtest.h>

#include "model/workload.h"

namespace archimedes::testing {

inline void ExpectSameNode(const Node& a, const Node& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.capacity, b.capacity);
  EXPECT_EQ(a.allocatable, b.allocatable);
  EXPECT_EQ(a.zone, b.zone);
  EXPECT_EQ(a.pod, b.pod);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.condition, b.condition);
}

inline void ExpectSameScenario(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.duration_s, b.duration_s);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) ExpectSameNode(a.nodes[i], b.nodes[i]);

  ASSERT_EQ(a.workload.services.size(), b.workload.services.size());
  for (size_t i = 0; i < a.workload.services.size(); ++i) {
    const Service& x = a.workload.services[i];
    const Service& y = b.workload.services[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.app, y.app);
    EXPECT_EQ(x.replicas, y.replicas);
    EXPECT_EQ(x.requests, y.requests);
    EXPECT_EQ(x.limits, y.limits);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.qos, y.qos);
    EXPECT_EQ(x.sla.availability, y.sla.availability);
    EXPECT_EQ(x.sla.min_available, y.sla.min_available);
    EXPECT_EQ(x.usage.step_seconds, y.usage.step_seconds);
    EXPECT_EQ(x.usage.values, y.usage.values);  // bit-exact floats
    EXPECT_EQ(x.usage.noise, y.usage.noise);
    EXPECT_EQ(x.usage.burst_probability, y.usage.burst_probability);
    EXPECT_EQ(x.usage.burst_factor, y.usage.burst_factor);
    EXPECT_EQ(x.usage.leak_per_day, y.usage.leak_per_day);
    EXPECT_EQ(x.usage.leak_rate, y.usage.leak_rate);
    EXPECT_EQ(x.start_time, y.start_time);
    EXPECT_EQ(x.end_time, y.end_time);
    EXPECT_EQ(x.max_per_node, y.max_per_node);
    EXPECT_EQ(x.node_selector, y.node_selector);
    EXPECT_EQ(x.startup_s, y.startup_s);
  }

  ASSERT_EQ(a.workload.jobs.size(), b.workload.jobs.size());
  for (size_t i = 0; i < a.workload.jobs.size(); ++i) {
    const BatchJob& x = a.workload.jobs[i];
    const BatchJob& y = b.workload.jobs[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.submit_time, y.submit_time);
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.function, y.function);
    EXPECT_EQ(x.tasks, y.tasks);
    EXPECT_EQ(x.task_requests, y.task_requests);
    EXPECT_EQ(x.duration_estimate_s, y.duration_estimate_s);
    EXPECT_EQ(x.duration_s, y.duration_s);
    EXPECT_EQ(x.utilization, y.utilization);
    EXPECT_EQ(x.delay_tolerance_s, y.delay_tolerance_s);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.gang, y.gang);
  }

  ASSERT_EQ(a.workload.node_events.size(), b.workload.node_events.size());
  for (size_t i = 0; i < a.workload.node_events.size(); ++i) {
    const NodeEvent& x = a.workload.node_events[i];
    const NodeEvent& y = b.workload.node_events[i];
    EXPECT_EQ(x.time, y.time);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.node, y.node);
    if (x.kind == NodeEvent::Kind::kAdd) ExpectSameNode(x.spec, y.spec);
  }

  ASSERT_EQ(a.workload.scale_events.size(), b.workload.scale_events.size());
  for (size_t i = 0; i < a.workload.scale_events.size(); ++i) {
    EXPECT_EQ(a.workload.scale_events[i].time, b.workload.scale_events[i].time);
    EXPECT_EQ(a.workload.scale_events[i].service, b.workload.scale_events[i].service);
    EXPECT_EQ(a.workload.scale_events[i].replicas, b.workload.scale_events[i].replicas);
  }
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_SAME_SCENARIO_H_
