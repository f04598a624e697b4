package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * counters, then the FIRING alert as plain Avro binary (schema of this build; the changelog is
 * internal to the application, so no registry is involved).
 */
public final class TrackerStateSerde implements Serde<TrackerState> {

  private static final byte VERSION = 1;

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
      out.writeByte(VERSION);
      out.writeInt(s.hits());
      out.writeLong(s.firstHitAt());
      out.writeLong(s.lastHitAt());
      out.writeLong(s.cleanSince());
      out.writeBoolean(s.firing() != null);
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
      if (version != VERSION) {
        throw new IllegalStateException("unknown tracker state version " + version);
      }
      int hits = in.readInt();
      long first = in.readLong();
      long last = in.readLong();
      long clean = in.readLong();
      Alert firing = null;
      if (in.readBoolean()) {
        BinaryDecoder decoder = DecoderFactory.get().directBinaryDecoder(bytes, null);
        firing = new SpecificDatumReader<>(Alert.class).read(null, decoder);
      }
      return new TrackerState(hits, first, last, clean, firing);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
