package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link TrackerState} for the store and its changelog: a format version byte, the
 * counters, then the FIRING alert as Avro binary. The changelog is internal to the application (no
 * registry), but it outlives a release: a rolling upgrade restores state written by the previous
 * one, so the alert's writer schema must be known when it is read.
 *
 * <ul>
 *   <li>version 1 (release 0.1.0): the alert in the Alert schema of 0.1.0, no schema identity; read
 *       with that schema ({@value #RELEASE_0_1_0}, a byte-identical copy of the released contract)
 *       as the writer;
 *   <li>version 2 (written now): the 64-bit Avro parsing fingerprint of the writer schema before
 *       the alert; read with the schema of that fingerprint, which must be this build's or one of
 *       {@link #KNOWN_SCHEMAS} (a later release adds the schema it replaces there).
 * </ul>
 *
 * Avro resolution then maps the writer's alert onto this build's Alert: a field added since is
 * filled with its default, a kind the writer had and this build has not reads as UNKNOWN.
 */
public final class TrackerStateSerde implements Serde<TrackerState> {

  static final byte VERSION_1 = 1;
  static final byte VERSION_2 = 2;

  /** Resource of the 0.1.0 Alert schema, the writer of every version-1 state. */
  static final String RELEASE_0_1_0 = "Alert-0.1.0.avsc";

  /** Alert schemas of earlier releases a version-2 state may carry, as resources next to this. */
  static final List<String> KNOWN_SCHEMAS = List.of(RELEASE_0_1_0);

  private static final Schema CURRENT = Alert.getClassSchema();
  private static final Schema ALERT_0_1_0 = load(RELEASE_0_1_0);
  private static final Map<Long, Schema> BY_FINGERPRINT = new HashMap<>();

  static {
    for (String resource : KNOWN_SCHEMAS) {
      Schema schema = load(resource);
      BY_FINGERPRINT.put(fingerprint(schema), schema);
    }
    BY_FINGERPRINT.put(fingerprint(CURRENT), CURRENT);
  }

  @Override
  public Serializer<TrackerState> serializer() {
    return (topic, state) -> state == null ? null : write(state);
  }

  @Override
  public Deserializer<TrackerState> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  static byte[] write(TrackerState s) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION_2);
      out.writeInt(s.hits());
      out.writeLong(s.firstHitAt());
      out.writeLong(s.lastHitAt());
      out.writeLong(s.cleanSince());
      out.writeBoolean(s.firing() != null);
      if (s.firing() != null) {
        out.writeLong(fingerprint(CURRENT));
      }
      out.flush();
      if (s.firing() != null) {
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
        new SpecificDatumWriter<>(Alert.class).write(s.firing(), encoder);
        encoder.flush();
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static TrackerState read(byte[] data) {
    try {
      ByteArrayInputStream bytes = new ByteArrayInputStream(data);
      DataInputStream in = new DataInputStream(bytes);
      byte version = in.readByte();
      if (version != VERSION_1 && version != VERSION_2) {
        throw new IllegalStateException(
            "tracker state version " + version + " is from a later release (this one reads 1, 2)");
      }
      int hits = in.readInt();
      long first = in.readLong();
      long last = in.readLong();
      long clean = in.readLong();
      Alert firing = null;
      if (in.readBoolean()) {
        Schema writer = version == VERSION_1 ? ALERT_0_1_0 : writerOf(in.readLong());
        BinaryDecoder decoder = DecoderFactory.get().directBinaryDecoder(bytes, null);
        firing = new SpecificDatumReader<Alert>(writer, CURRENT).read(null, decoder);
      }
      return new TrackerState(hits, first, last, clean, firing);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Schema writerOf(long fingerprint) {
    Schema writer = BY_FINGERPRINT.get(fingerprint);
    if (writer == null) {
      throw new IllegalStateException(
          "tracker state carries an Alert of an unknown schema (fingerprint "
              + Long.toHexString(fingerprint)
              + "): written by a later release?");
    }
    return writer;
  }

  static long fingerprint(Schema schema) {
    return SchemaNormalization.parsingFingerprint64(schema);
  }

  private static Schema load(String resource) {
    try (InputStream in = TrackerStateSerde.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new Schema.Parser().parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
