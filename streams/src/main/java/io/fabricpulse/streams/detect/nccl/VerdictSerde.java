package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** Store and changelog form of a {@link NcclTransportVerdict} (its own versioned binary form). */
final class VerdictSerde {

  private VerdictSerde() {}

  static Serde<NcclTransportVerdict> serde() {
    return Serdes.serdeFrom(
        (topic, verdict) -> verdict == null ? null : write(verdict),
        (topic, bytes) -> bytes == null ? null : read(bytes));
  }

  static byte[] write(NcclTransportVerdict verdict) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
      DataOutputStream out = new DataOutputStream(bytes);
      verdict.writeTo(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static NcclTransportVerdict read(byte[] data) {
    try {
      return NcclTransportVerdict.readFrom(new DataInputStream(new ByteArrayInputStream(data)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
