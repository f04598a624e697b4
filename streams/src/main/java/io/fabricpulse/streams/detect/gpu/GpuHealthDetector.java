package io.fabricpulse.streams.detect.gpu;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * The GPU detectors (docs/formats.md, nvidia-smi and kernel log; docs/thresholds.md, GPU): gpu_ecc
 * (GPU_ECC_UNCORRECTABLE, GPU_ROW_REMAP_FAILURE, GPU_RETIRED_PAGES), gpu_reset_required,
 * gpu_ecc_aging, gpu_xid and gpu_hot, per (node, GPU), over fabric.raw.gpu and fabric.raw.xid. Both
 * topics are keyed cluster/node and partitioned alike, so they are merged without a repartition and
 * a node's Xids meet its nvidia-smi samples in one task.
 *
 * <pre>
 * source-fabric-raw-gpu -> gpu-samples ─┐
 * source-fabric-raw-xid -> gpu-xids ────┴ gpu-inputs-merge
 *   -> gpu-detector [gpu-history, gpu-pci, gpu-xid-counts, gpu-tracker]
 *   -> gpu-results-only -> gpu-results-cast -> fabric.alerts, fabric.alerts.active
 *   -> gpu-dead-letters-only -> gpu-dead-letters-cast -> gpu-sink-dlq (fabric.dlq)
 * </pre>
 */
public final class GpuHealthDetector {

  /** Per GPU (key cluster/node/gpu=N): baseline ECC counts and corrected-ECC readings. */
  public static final String HISTORY_STORE = "gpu-history";

  /** PCI bus:device -> GPU index per node (key cluster/node/bus:dev), learnt from nvidia-smi. */
  public static final String PCI_STORE = "gpu-pci";

  /** Xid incident counts (key rule|subject, value count;last-time). */
  public static final String XID_COUNT_STORE = "gpu-xid-counts";

  /** Trackers of every GPU rule (key rule|subject). */
  public static final String TRACKER_STORE = "gpu-tracker";

  public static final String PROCESSOR = "gpu-detector";

  /** The GPU family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          "gpu",
          EnumSet.of(
              AlertKind.GPU_ECC_UNCORRECTABLE,
              AlertKind.GPU_ROW_REMAP_FAILURE,
              AlertKind.GPU_RETIRED_PAGES,
              AlertKind.GPU_RESET_REQUIRED,
              AlertKind.GPU_ECC_AGING,
              AlertKind.GPU_XID,
              AlertKind.GPU_HOT),
          GpuHealthDetector::addTo);

  private GpuHealthDetector() {}

  /** Adds the GPU detectors to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(HISTORY_STORE, new GpuHistorySerde());
    inputs.addStore(PCI_STORE, Serdes.String());
    inputs.addStore(XID_COUNT_STORE, Serdes.String());
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    GpuRules gpuRules = GpuRules.from(rules);
    KStream<String, SpecificRecord> samples =
        inputs.stream(inputs.topics().gpu(), GpuEcc.class)
            .mapValues(v -> (SpecificRecord) v, Named.as("gpu-samples"));
    KStream<String, SpecificRecord> xids =
        inputs.stream(inputs.topics().xid(), GpuXid.class)
            .mapValues(v -> (SpecificRecord) v, Named.as("gpu-xids"));
    DetectorProcessor.addAlerting(
        inputs,
        "gpu",
        PROCESSOR,
        samples.merge(xids, Named.as("gpu-inputs-merge")),
        failures -> new GpuDetectorProcessor(gpuRules, failures),
        HISTORY_STORE,
        PCI_STORE,
        XID_COUNT_STORE,
        TRACKER_STORE);
  }
}
