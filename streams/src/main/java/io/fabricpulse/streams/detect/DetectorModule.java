package io.fabricpulse.streams.detect;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.Set;

/**
 * One family of detectors (PFC, link, NCCL, ...) as the pipeline sees it: what it adds to the
 * topology and which alert kinds it can raise. {@link io.fabricpulse.streams.FabricTopology} lists
 * every module once.
 */
public interface DetectorModule {

  /** Short name for logs and the demo, e.g. "pfc". */
  String name();

  /** The alert kinds this module raises when its rules are enabled. */
  Set<AlertKind> kinds();

  /** Adds the module's processors and stores to the shared builder behind {@code inputs}. */
  void addTo(DetectorInputs inputs, RuleSet rules);

  /** What a module adds to the topology. */
  @FunctionalInterface
  interface Builder {
    void addTo(DetectorInputs inputs, RuleSet rules);
  }

  /** A module from its name, its alert kinds and the method that adds it. */
  static DetectorModule of(String name, Set<AlertKind> kinds, Builder builder) {
    Set<AlertKind> copy = Set.copyOf(kinds);
    return new DetectorModule() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Set<AlertKind> kinds() {
        return copy;
      }

      @Override
      public void addTo(DetectorInputs inputs, RuleSet rules) {
        builder.addTo(inputs, rules);
      }

      @Override
      public String toString() {
        return "DetectorModule[" + name + "]";
      }
    };
  }
}
