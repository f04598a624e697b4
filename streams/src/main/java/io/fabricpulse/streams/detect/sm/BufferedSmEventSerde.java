package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.streams.alerts.Lineage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link BufferedSmEvent} for the buffer store and its changelog: a version byte,
 * the lineage, then the record in the pipeline's own Avro wire format (with its schema id, so a
 * record buffered before an upgrade still reads after it).
 */
final class BufferedSmEventSerde implements Serde<BufferedSmEvent> {

  private static final byte VERSION = 1;
  private static final String TOPIC = "sm-buffer";

  private final Serde<SmSweep> records;

  BufferedSmEventSerde(Serde<SmSweep> records) {
    this.records = records;
  }

  @Override
  public Serializer<BufferedSmEvent> serializer() {
    return (topic, e) -> e == null ? null : write(e);
  }

  @Override
  public Deserializer<BufferedSmEvent> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  private byte[] write(BufferedSmEvent e) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      Lineage l = e.lineage();
      out.writeBoolean(l.topic() != null);
      if (l.topic() != null) {
        out.writeUTF(l.topic());
      }
      out.writeInt(l.partition() == null ? -1 : l.partition());
      out.writeLong(l.offset() == null ? -1 : l.offset());
      byte[] record = records.serializer().serialize(TOPIC, e.record());
      out.writeInt(record.length);
      out.write(record);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  private BufferedSmEvent read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalStateException("unknown buffered SM event version " + version);
      }
      String topic = in.readBoolean() ? in.readUTF() : null;
      int partition = in.readInt();
      long offset = in.readLong();
      Lineage lineage =
          new Lineage(topic, partition < 0 ? null : partition, offset < 0 ? null : offset);
      byte[] record = new byte[in.readInt()];
      in.readFully(record);
      return new BufferedSmEvent(records.deserializer().deserialize(TOPIC, record), lineage);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
