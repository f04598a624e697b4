package io.fabricpulse.collectors.ibdiagnet;

import io.fabricpulse.avro.FabricFinding;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FindingKind;
import io.fabricpulse.avro.FindingSeverity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline record of one ibdiagnet run's log: {@link FabricFindings} on fabric.raw.ibdiagnet.
 */
public final class IbdiagnetFindingRecords {
  private IbdiagnetFindingRecords() {}

  /**
   * @param fallbackTime the run's time when the log carries no {@code Running timestamp} (the log's
   *     modification time)
   */
  public static FabricFindings of(
      String cluster,
      String observedBy,
      String sourceFile,
      Instant fallbackTime,
      List<IbdiagnetFinding> findings) {
    Instant runTime =
        findings.stream()
            .map(IbdiagnetFinding::runTime)
            .filter(t -> t != null)
            .findFirst()
            .orElse(fallbackTime);
    List<FabricFinding> records = new ArrayList<>();
    for (IbdiagnetFinding f : findings) {
      FabricFinding.Builder b =
          FabricFinding.newBuilder()
              .setLine(f.line())
              .setSeverity(FindingSeverity.valueOf(f.severity().name()))
              .setSection(f.section())
              .setKind(FindingKind.valueOf(f.kind().name()))
              .setActual(f.actual())
              .setExpected(f.expected())
              .setText(f.text());
      if (f.subject() != null) {
        b.setSubject(f.subject().raw())
            .setSubjectGuid(f.subject().nodeGuid())
            .setSubjectPort(f.subject().portLabel());
      }
      if (f.peer() != null) {
        b.setPeer(f.peer().raw())
            .setPeerGuid(f.peer().nodeGuid())
            .setPeerPort(f.peer().portLabel());
      }
      records.add(b.build());
    }
    return FabricFindings.newBuilder()
        .setCluster(cluster)
        .setObservedBy(observedBy)
        .setRunTime(runTime)
        .setSourceFile(sourceFile)
        .setFindings(records)
        .build();
  }
}
