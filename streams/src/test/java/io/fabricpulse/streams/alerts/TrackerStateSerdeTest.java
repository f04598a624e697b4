package io.fabricpulse.streams.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.testing.RepoPaths;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/**
 * Chaos item 9 for the alert tracker's state: a rolling upgrade restores the FIRING alerts the
 * previous release wrote to the changelog, with their writer schema, so none is re-fired (state
 * lost) or misread.
 */
class TrackerStateSerdeTest {

  private static final Instant STARTED = Instant.parse("2025-03-10T06:00:00Z");

  @Test
  void stateWrittenByRelease010IsReadWithItsSchema() throws IOException {
    Alert firing = firingAlert();
    // exactly what 0.1.0 wrote: version 1, the counters, then the alert in the 0.1.0 schema
    Schema release010 = released("0.1.0");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    out.writeInt(3);
    out.writeLong(STARTED.toEpochMilli());
    out.writeLong(STARTED.toEpochMilli() + 20_000);
    out.writeLong(TrackerState.NOT_CLEAN);
    out.writeBoolean(true);
    out.flush();
    BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
    new SpecificDatumWriter<Alert>(release010).write(firing, encoder);
    encoder.flush();

    TrackerState read = TrackerStateSerde.read(bytes.toByteArray());

    assertEquals(
        new TrackerState(
            3,
            STARTED.toEpochMilli(),
            STARTED.toEpochMilli() + 20_000,
            TrackerState.NOT_CLEAN,
            firing),
        read);
  }

  @Test
  void stateIsWrittenWithItsSchemaFingerprintAndReadBack() {
    TrackerState firing =
        new TrackerState(5, 1_000L, 9_000L, TrackerState.NOT_CLEAN, firingAlert());
    byte[] bytes = TrackerStateSerde.write(firing);
    assertEquals(TrackerStateSerde.VERSION_2, bytes[0]);
    long fingerprint = ByteBuffer.wrap(bytes, 1 + 4 + 8 + 8 + 8 + 1, 8).getLong();
    assertEquals(TrackerStateSerde.fingerprint(Alert.getClassSchema()), fingerprint);
    assertEquals(firing, TrackerStateSerde.read(bytes));

    TrackerState pending = new TrackerState(1, 1_000L, 1_000L, TrackerState.NOT_CLEAN, null);
    assertNull(TrackerStateSerde.read(TrackerStateSerde.write(pending)).firing());
    assertEquals(pending, TrackerStateSerde.read(TrackerStateSerde.write(pending)));
  }

  @Test
  void aStateOfAnUnknownSchemaOrFormatFailsClearly() {
    byte[] bytes = TrackerStateSerde.write(new TrackerState(1, 1L, 1L, 0L, firingAlert()));
    ByteBuffer.wrap(bytes).putLong(1 + 4 + 8 + 8 + 8 + 1, 42L);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> TrackerStateSerde.read(bytes));
    assertTrue(e.getMessage().contains("unknown schema"), e.getMessage());

    bytes[0] = 3;
    e = assertThrows(IllegalStateException.class, () -> TrackerStateSerde.read(bytes));
    assertTrue(e.getMessage().contains("later release"), e.getMessage());
  }

  @Test
  void everyReleasedAlertSchemaIsKnownToTheReader() throws IOException {
    // a release that changes Alert copies its schema to schemas/.../released/<version>/: the
    // tracker must be able to read state written with each, or a rolling upgrade re-fires
    List<String> unknown = new ArrayList<>();
    Path released = RepoPaths.root().resolve("schemas/src/test/resources/released");
    try (Stream<Path> versions = Files.list(released)) {
      for (Path version : versions.toList()) {
        Path alert = version.resolve("Alert.avsc");
        if (!Files.exists(alert)) {
          continue;
        }
        Schema schema = new Schema.Parser().parse(alert.toFile());
        boolean known =
            TrackerStateSerde.fingerprint(schema)
                    == TrackerStateSerde.fingerprint(Alert.getClassSchema())
                || TrackerStateSerde.KNOWN_SCHEMAS.stream()
                    .anyMatch(r -> r.equals("Alert-" + version.getFileName() + ".avsc"));
        if (!known) {
          unknown.add(version.getFileName().toString());
        }
      }
    }
    assertEquals(List.of(), unknown, "released Alert schemas the tracker state cannot read");
    // the shipped copy is the released contract, byte for byte
    assertEquals(
        Files.readString(released.resolve("0.1.0/Alert.avsc")),
        Files.readString(
            RepoPaths.root()
                .resolve(
                    "streams/src/main/resources/io/fabricpulse/streams/alerts/Alert-0.1.0.avsc")));
  }

  private static Schema released(String version) throws IOException {
    return new Schema.Parser()
        .parse(
            RepoPaths.root()
                .resolve("schemas/src/test/resources/released/" + version + "/Alert.avsc")
                .toFile());
  }

  private static Alert firingAlert() {
    return Alert.newBuilder()
        .setAlertId("link-flap/c1/gpu001/mlx5_0/1/1741586400000")
        .setRule("link-flap-default")
        .setKind(AlertKind.LINK_FLAP)
        .setSeverity(Severity.WARNING)
        .setState(AlertState.FIRING)
        .setCluster("c1")
        .setNode("gpu001")
        .setDevice("mlx5_0")
        .setPort(1)
        .setStartedAt(STARTED)
        .setSummary("gpu001 mlx5_0/1 flapped 3 times in 5m")
        .setEvidence(Map.of("link_downed", "3"))
        .setLabels(Map.of())
        .build();
  }
}
