package io.fabricpulse.schemas.nccl;

/**
 * What an NCCL_DEBUG message says, as stored in {@code NcclLog.kind} (the enum name). Only the
 * kinds the transport verdict and the detectors need are distinguished; everything else is {@link
 * #OTHER}.
 */
public enum NcclKind {
  /** {@code NCCL version 2.27.5+cuda12.9}; attrs version, build. */
  VERSION,
  /**
   * {@code NET/IB : Using [0]mlx5_0:1/RoCE ... [RO]; OOB eth0:...}; attrs net, hcas, link_layers.
   */
  NET_IB_USING,
  /** {@code NET/IB : No device found.} */
  NET_IB_NO_DEVICE,
  /** {@code NET/Socket : Using [0]eth0:...}: also printed for the bootstrap interface. */
  NET_SOCKET_USING,
  /** {@code Using network IB|Socket|<plugin>}; attrs net. */
  USING_NETWORK,
  /** Net plugin loading, selection and failures; attrs event, plugin. */
  PLUGIN,
  /**
   * {@code NET/%s : GPU Direct RDMA Enabled|Disabled for HCA %d '%s'}; attrs transport, enabled.
   */
  GDR_HCA,
  /** {@code GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)}; attrs distance. */
  GDR_GPU_DISTANCE,
  /** One connection of a channel or ring: {@code ... via NET/IB/0/GDRDMA}; attrs transport, gdr. */
  CHANNEL,
  /** {@code Connected all rings, use ring PXN %d GDR %d}; attrs pxn, gdr. */
  RING_SUMMARY,
  /** {@code ... commId 0x... - Init START}; attrs comm, rank, nranks. */
  INIT_START,
  /** {@code ... commId 0x... - Init COMPLETE} or {@code Init COMPLETE}. */
  INIT_COMPLETE,
  /** {@code DMA-BUF is available on GPU device %d}. */
  DMABUF,
  /** {@code NCCL_NET_GDR_LEVEL set by environment to %s}. */
  GDR_LEVEL_ENV,
  /**
   * Any WARN line; completion errors carry attrs event=completion_error, status, vendor_err; a
   * fatal one carries attr failure (see {@link NcclFailures}).
   */
  WARN,
  /**
   * Not an NCCL_DEBUG line: a line of the application around NCCL (PyTorch ProcessGroupNCCL,
   * torch.distributed, nccl-tests) that reports a fatal NCCL failure; attr failure. Other
   * application lines are not records.
   */
  APP_ERROR,
  /** An NCCL line this parser does not classify further. */
  OTHER
}
