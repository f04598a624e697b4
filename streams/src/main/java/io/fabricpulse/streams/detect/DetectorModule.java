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
}
