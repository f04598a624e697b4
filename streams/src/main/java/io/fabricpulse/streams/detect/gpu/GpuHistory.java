package io.fabricpulse.streams.detect.gpu;

import java.util.List;

/**
 * What the GPU detectors remember of one GPU between nvidia-smi samples.
 *
 * @param bootId boot id of the latest sample (volatile ECC counts restart with the driver)
 * @param time event time of the latest sample
 * @param uncorrectedVolatile latest ecc.errors.uncorrected.volatile.total, null = unknown
 * @param uncorrectedAggregate latest ecc.errors.uncorrected.aggregate.total, null = unknown
 * @param correctedAggregate true when {@code corrected} holds aggregate counts, false for volatile
 * @param corrected corrected ECC counts within the longest GPU_ECC_AGING window, oldest first
 */
record GpuHistory(
    String bootId,
    long time,
    Long uncorrectedVolatile,
    Long uncorrectedAggregate,
    boolean correctedAggregate,
    List<Point> corrected) {

  GpuHistory {
    corrected = List.copyOf(corrected);
  }

  /** One corrected-ECC reading. */
  record Point(long time, long value) {}
}
