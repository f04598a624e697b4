package io.fabricpulse.streams.detect.gpu;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.gpu.GpuHistory.Point;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The per-sample GPU conditions (docs/thresholds.md, GPU). Null fields are [N/A]: unknown, never
 * zero, so a condition whose inputs are all null gives no observation at all.
 */
final class GpuSampleChecks {

  private GpuSampleChecks() {}

  /**
   * gpu_ecc (CRITICAL, E1 [DCGM-health][DCGM-limits]): row-remap failure, retired pages (sbe+dbe)
   * at or above the limit, or an increase of the uncorrected count (volatile within one boot, or
   * aggregate; the first sample is the baseline). While the alert is FIRING it keeps holding as
   * long as a row remap or page retirement is pending: the error waits for the GPU reset that the
   * alert already asks for, so the WARNING "reset GPU" alert is not raised on top of it.
   */
  static Optional<Observation> ecc(
      Rule rule, boolean firing, AlertSubject subject, GpuEcc s, GpuHistory prev, Lineage lineage) {
    long t = s.getTime().toEpochMilli();
    Long retired = sum(s.getRetiredPagesSbe(), s.getRetiredPagesDbe());
    Boolean failure = s.getRemappedRowsFailure();
    long inc = uncorrectedIncrease(s, prev);
    boolean known =
        s.getEccUncorrectedVolatile() != null
            || s.getEccUncorrectedAggregate() != null
            || retired != null
            || failure != null;
    if (!known) {
      return Optional.empty();
    }
    long incThreshold = rule.thresholds().integer("uncorrectable_increase");
    long retiredLimit = rule.thresholds().integer("retired_pages");
    Map<String, String> evidence = eccEvidence(s);
    if (prev != null) {
      evidence.put("uncorrected_increase", Long.toString(inc));
    }
    String name = subject.shortName();
    if (Boolean.TRUE.equals(failure)) {
      return Optional.of(
          holds(
                  subject,
                  t,
                  1,
                  1,
                  "failure",
                  Message.of("gpu_ecc.row_remap_failure", name),
                  evidence,
                  lineage)
              .withKind(AlertKind.GPU_ROW_REMAP_FAILURE));
    }
    if (retired != null && retired >= retiredLimit) {
      return Optional.of(
          holds(
                  subject,
                  t,
                  retired,
                  retiredLimit,
                  "pages",
                  Message.of("gpu_ecc.retired_pages", name, retired, retiredLimit),
                  evidence,
                  lineage)
              .withKind(AlertKind.GPU_RETIRED_PAGES));
    }
    if (inc >= incThreshold) {
      return Optional.of(
          holds(
                  subject,
                  t,
                  inc,
                  incThreshold,
                  "errors",
                  Message.of(
                      "gpu_ecc.uncorrectable",
                      name,
                      inc,
                      text(s.getEccUncorrectedVolatile()),
                      text(s.getEccUncorrectedAggregate())),
                  evidence,
                  lineage)
              .withKind(AlertKind.GPU_ECC_UNCORRECTABLE));
    }
    if (firing && resetPending(s)) {
      return Optional.of(
          holds(
              subject,
              t,
              0,
              incThreshold,
              "errors",
              Message.of("gpu_ecc.uncorrectable", name, 0, "", ""),
              evidence,
              lineage));
    }
    return Optional.of(Observation.clean(subject, t, lineage));
  }

  /** gpu_reset_required (WARNING, E1 "WARN on pending retirement"): remap or retirement pending. */
  static Optional<Observation> resetRequired(AlertSubject subject, GpuEcc s, Lineage lineage) {
    Boolean rows = s.getRemappedRowsPending();
    Boolean pages = s.getRetiredPagesPending();
    if (rows == null && pages == null) {
      return Optional.empty();
    }
    long t = s.getTime().toEpochMilli();
    if (!resetPending(s)) {
      return Optional.of(Observation.clean(subject, t, lineage));
    }
    String what =
        Boolean.TRUE.equals(rows) && Boolean.TRUE.equals(pages)
            ? "a row remap and a page retirement are"
            : Boolean.TRUE.equals(rows) ? "a row remap is" : "a page retirement is";
    return Optional.of(
        holds(
            subject,
            t,
            1,
            1,
            "pending",
            Message.of("gpu_reset_required.firing", subject.shortName(), what),
            eccEvidence(s),
            lineage));
  }

  /**
   * gpu_ecc_aging (WARNING): corrected ECC growth within the rule's window above the bound; the the
   * operators' requirement [FN-003] calls corrected ECC growth an early ageing signal, and
   * DCGM/gpud treat a high single-bit rate as a warning (Xid 92) [GPUD-xid].
   */
  static Optional<Observation> aging(
      Rule rule, AlertSubject subject, GpuEcc s, GpuHistory now, Lineage lineage) {
    if (now.corrected().isEmpty() || correctedCount(s) == null) {
      return Optional.empty();
    }
    long t = s.getTime().toEpochMilli();
    long windowMs = rule.thresholds().duration("window").toMillis();
    long bound = rule.thresholds().integer("corrected_growth");
    Point first = null;
    for (Point p : now.corrected()) {
      if (t - p.time() <= windowMs) {
        first = p;
        break;
      }
    }
    Point last = now.corrected().get(now.corrected().size() - 1);
    long growth = first == null ? 0 : last.value() - first.value();
    if (growth <= bound) {
      return Optional.of(Observation.clean(subject, t, lineage));
    }
    Map<String, String> evidence = eccEvidence(s);
    evidence.put("corrected_growth", Long.toString(growth));
    evidence.put("corrected_basis", now.correctedAggregate() ? "aggregate" : "volatile");
    evidence.put(
        "corrected_from", first.value() + " at " + java.time.Instant.ofEpochMilli(first.time()));
    String window = Durations.format(rule.thresholds().duration("window"));
    return Optional.of(
        holds(
            subject,
            t,
            growth,
            bound,
            "errors/" + window,
            Message.of("gpu_ecc_aging.firing", subject.shortName(), growth, window, bound),
            evidence,
            lineage));
  }

  /** gpu_hot: temperature.gpu above the bound; the rule's FiringPolicy asks for the duration. */
  static Optional<Observation> hot(Rule rule, AlertSubject subject, GpuEcc s, Lineage lineage) {
    Integer temp = s.getTemperatureGpu();
    if (temp == null) {
      return Optional.empty();
    }
    long t = s.getTime().toEpochMilli();
    long bound = rule.thresholds().integer("temperature_c");
    if (temp <= bound) {
      return Optional.of(Observation.clean(subject, t, lineage));
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("temperature_gpu", Integer.toString(temp));
    if (s.getTemperatureMemory() != null) {
      evidence.put("temperature_memory", Integer.toString(s.getTemperatureMemory()));
    }
    putIdentity(evidence, s);
    return Optional.of(
        Observation.holds(
            subject,
            t,
            temp,
            bound,
            "celsius",
            Message.of(
                "gpu_hot.firing",
                subject.shortName(),
                temp,
                bound,
                Durations.format(rule.thresholds().duration("duration"))),
            evidence,
            lineage));
  }

  static boolean resetPending(GpuEcc s) {
    return Boolean.TRUE.equals(s.getRemappedRowsPending())
        || Boolean.TRUE.equals(s.getRetiredPagesPending());
  }

  /** The corrected count the aging check follows: aggregate when known, else volatile. */
  static Long correctedCount(GpuEcc s) {
    return s.getEccCorrectedAggregate() != null
        ? s.getEccCorrectedAggregate()
        : s.getEccCorrectedVolatile();
  }

  /** Uncorrected errors since the previous sample: 0 on the baseline sample or when unknown. */
  static long uncorrectedIncrease(GpuEcc s, GpuHistory prev) {
    if (prev == null) {
      return 0;
    }
    long inc = 0;
    Long agg = s.getEccUncorrectedAggregate();
    if (agg != null && prev.uncorrectedAggregate() != null && agg > prev.uncorrectedAggregate()) {
      inc = agg - prev.uncorrectedAggregate();
    }
    Long vol = s.getEccUncorrectedVolatile();
    boolean sameBoot = prev.bootId().equals(s.getBootId());
    // volatile counts restart with the driver: a decrease or a new boot is a new baseline
    if (sameBoot
        && vol != null
        && prev.uncorrectedVolatile() != null
        && vol > prev.uncorrectedVolatile()) {
      // the same errors are counted in both totals: take the larger, never the sum
      inc = Math.max(inc, vol - prev.uncorrectedVolatile());
    }
    return inc;
  }

  static Map<String, String> eccEvidence(GpuEcc s) {
    Map<String, String> e = new LinkedHashMap<>();
    put(e, "ecc_uncorrected_volatile", s.getEccUncorrectedVolatile());
    put(e, "ecc_uncorrected_aggregate", s.getEccUncorrectedAggregate());
    put(e, "ecc_corrected_volatile", s.getEccCorrectedVolatile());
    put(e, "ecc_corrected_aggregate", s.getEccCorrectedAggregate());
    put(e, "retired_pages_sbe", s.getRetiredPagesSbe());
    put(e, "retired_pages_dbe", s.getRetiredPagesDbe());
    put(e, "retired_pages_pending", s.getRetiredPagesPending());
    put(e, "remapped_rows_correctable", s.getRemappedRowsCorrectable());
    put(e, "remapped_rows_uncorrectable", s.getRemappedRowsUncorrectable());
    put(e, "remapped_rows_pending", s.getRemappedRowsPending());
    put(e, "remapped_rows_failure", s.getRemappedRowsFailure());
    putIdentity(e, s);
    return e;
  }

  private static void putIdentity(Map<String, String> e, GpuEcc s) {
    put(e, "uuid", s.getUuid());
    put(e, "pci_bus_id", s.getPciBusId());
    put(e, "name", s.getName());
    e.put("boot_id", s.getBootId());
    e.put("seq", Long.toString(s.getSeq()));
  }

  private static Observation holds(
      AlertSubject subject,
      long t,
      double value,
      double threshold,
      String unit,
      Message summary,
      Map<String, String> evidence,
      Lineage lineage) {
    return Observation.holds(subject, t, value, threshold, unit, summary, evidence, lineage)
        .firingNow();
  }

  private static Long sum(Long a, Long b) {
    if (a == null && b == null) {
      return null;
    }
    return (a == null ? 0 : a) + (b == null ? 0 : b);
  }

  private static String text(Object v) {
    return v == null ? "N/A" : v.toString();
  }

  private static void put(Map<String, String> e, String key, Object v) {
    if (v != null) {
      e.put(key, v.toString());
    }
  }
}
