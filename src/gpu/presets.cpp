// The named GPU systems. Each is one node in the spec grammar of system_spec.hpp, with the public
// page its figures come from; `nodes=N` scales it. NVLink counts and speeds follow the GPU kind
// (gpu_kinds.cpp); what a page below gives is the GPUs, the fabric and the NICs.
#include "ringlab/gpu/system_spec.hpp"

namespace ringlab::gpu {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> kPresets = {
      {"dgx-1-v100", "NVIDIA DGX-1 (V100)", "gpu=v100,gpus=8,nics=4,nic=100Gb/s,net=ib",
       "NVIDIA DGX-1 with Tesla V100 System Architecture whitepaper (WP-08437-002): 8 V100 SXM2 in "
       "a hybrid cube mesh of NVLinks, 4 x 100 Gb/s EDR InfiniBand"},
      {"dgx-a100", "NVIDIA DGX A100", "gpu=a100,gpus=8,nics=8,nic=200Gb/s,net=ib",
       "docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html: 8 A100 SXM4, 6 "
       "NVSwitches, 8 x 200 Gb/s ConnectX-6 HDR InfiniBand for compute"},
      {"dgx-h100", "NVIDIA DGX H100", "gpu=h100,gpus=8,nics=8,nic=400Gb/s,net=ib",
       "docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html: 8 H100 SXM5, 4 "
       "NVSwitches, 8 x 400 Gb/s ConnectX-7 NDR InfiniBand for compute"},
      {"dgx-h200", "NVIDIA DGX H200", "gpu=h200,gpus=8,nics=8,nic=400Gb/s,net=ib",
       "docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html (DGX H100/H200): 8 "
       "H200 SXM5, 4 NVSwitches, 8 x 400 Gb/s ConnectX-7 NDR InfiniBand"},
      {"dgx-b200", "NVIDIA DGX B200", "gpu=b200,gpus=8,nics=8,nic=400Gb/s,net=ib",
       "docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html: 8 B200, 2 NVSwitch "
       "chips (NVLink 5), 8 x 400 Gb/s ConnectX-7 for compute"},
      {"aws-p4d", "AWS p4d.24xlarge", "gpu=a100,gpus=8,nics=4,nic=100Gb/s,net=efa",
       "aws.amazon.com/ec2/instance-types/p4/: 8 A100 40GB on NVSwitch, 400 Gbps EFA (4 x 100)"},
      {"aws-p5", "AWS p5.48xlarge", "gpu=h100,gpus=8,nics=32,nic=100Gb/s,net=efa",
       "aws.amazon.com/ec2/instance-types/p5/: 8 H100 on NVSwitch, 3200 Gbps EFAv2 (32 x 100)"},
      {"aws-g5", "AWS g5.48xlarge", "gpu=a10g,gpus=8,nics=1,nic=100Gb/s,net=efa",
       "aws.amazon.com/ec2/instance-types/g5/: 8 A10G on PCIe gen4, 100 Gbps EFA"},
      {"azure-ndv4", "Azure ND A100 v4 (ND96asr_v4)", "gpu=a100,gpus=8,nics=8,nic=200Gb/s,net=ib",
       "learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndasra100v4-series: 8 "
       "A100 40GB on NVSwitch (NVLink 3.0), 8 x 200 Gb/s HDR InfiniBand"},
      {"azure-ndv5", "Azure ND H100 v5 (ND96isr_H100_v5)",
       "gpu=h100,gpus=8,nics=8,nic=400Gb/s,net=ib",
       "learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndh100v5-series: 8 H100 "
       "on NVSwitch (NVLink 4.0), 8 x 400 Gb/s NDR InfiniBand"},
      {"gcp-a3", "Google Cloud a3-highgpu-8g", "gpu=h100,gpus=8,nics=4,nic=200Gb/s,net=tcp",
       "cloud.google.com/compute/docs/gpus/gpu-network-bandwidth: A3 High, 8 H100, 4 x 200 Gbps "
       "GPU NICs (GPUDirect-TCPX)"},
      {"gcp-a3-mega", "Google Cloud a3-megagpu-8g", "gpu=h100,gpus=8,nics=8,nic=200Gb/s,net=tcp",
       "cloud.google.com/compute/docs/gpus/gpu-network-bandwidth: A3 Mega, 8 H100, 8 x 200 Gbps "
       "GPU NICs (GPUDirect-TCPXO)"},
      {"gcp-a3-ultra", "Google Cloud a3-ultragpu-8g", "gpu=h200,gpus=8,nics=8,nic=400Gb/s,net=roce",
       "cloud.google.com/compute/docs/gpus/gpu-network-bandwidth: A3 Ultra, 8 H200, 8 x 400 Gbps "
       "ConnectX-7 RDMA over Converged Ethernet"},
      {"gcp-a4", "Google Cloud a4-highgpu-8g", "gpu=b200,gpus=8,nics=8,nic=400Gb/s,net=roce",
       "cloud.google.com/compute/docs/gpus/gpu-network-bandwidth: A4, 8 B200, 8 x 400 Gbps "
       "ConnectX-7 RDMA over Converged Ethernet"},
      {"oci-h100", "OCI BM.GPU.H100.8", "gpu=h100,gpus=8,nics=16,nic=200Gb/s,net=roce",
       "docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm: 8 H100, 16 x 200 Gbps "
       "RDMA (RoCE v2) cluster network"},
      {"oci-a100", "OCI BM.GPU4.8", "gpu=a100,gpus=8,nics=16,nic=100Gb/s,net=roce",
       "docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm: 8 A100 40GB, 1600 Gbps "
       "RDMA (16 x 100 Gbps RoCE v2) cluster network"},
      {"alps-gh200", "CSCS Alps GH200 node (HPE Cray EX254n)",
       "gpu=gh200,gpus=4,nics=4,nic=200Gb/s,net=slingshot",
       "docs.cscs.ch/alps/hardware/: 4 GH200 per node joined all to all by NVLink (6 links a "
       "pair), 4 x 200 Gb/s Slingshot-11 NICs"},
      {"pcie-4x4090", "4 x GeForce RTX 4090 workstation", "gpu=rtx4090,gpus=4,p2p=no",
       "NVIDIA GeForce RTX 4090 specifications (PCIe gen4 x16, no NVLink); the GeForce RTX 40 "
       "driver offers no PCIe peer to peer, so NCCL goes through host memory"},
      {"mi300x-8", "8 x AMD Instinct MI300X (OAM platform)", "gpu=mi300x,gpus=8",
       "AMD Instinct MI300X platform datasheet: 8 MI300X fully connected by Infinity Fabric (7 "
       "links per GPU, 64 GB/s each way); NICs vary by vendor: add nics= and nic="},
  };
  return kPresets;
}

}  // namespace ringlab::gpu
