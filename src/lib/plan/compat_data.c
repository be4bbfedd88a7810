/* compat_data.c: the compatibility tables, kept as data in one place (cudnn-distribution.md §4
 * names the source of every row). Edit here when NVIDIA or a framework publishes new facts. */
#include "compat.h"

/* §4.1 (cuDNN support matrices) and §4.2 (CUDA minor-version compatibility). CUDA 13 has no
 * published Windows floor ("N/A"); the CUDA 13.x minor-version floor is the R580 branch. */
const cc_driver_floor cc_driver_floors[] = {
    {10, "440.33", "441.22", "CUDA 10.2 minimum driver (CUDA compatibility guide)"},
    {11, "450.80.02", "452.39", "cuDNN support matrix, CUDA 11.x builds"},
    {12, "525.60.13", "527.41", "cuDNN support matrix, CUDA 12.x builds"},
    {13, "580.65.06", "580", "cuDNN 9.17 support matrix, CUDA 13.x builds (Windows: N/A, R580)"},
};
const size_t cc_driver_floor_count = sizeof(cc_driver_floors) / sizeof(cc_driver_floors[0]);

/* §4.1: toolkits each cuDNN build lists. */
const cc_toolkit_range cc_toolkit_ranges[] = {
    {"8.9.5", "8.9.7", 12, "12.0", "12.2", "cuDNN 8.9.5-8.9.7 support matrix"},
    {"8.9.5", "8.9.7", 11, "11.0", "11.8", "cuDNN 8.9.5-8.9.7 support matrix"},
    {"9.0.0", "9.0.0", 12, "12.0", "12.3", "cuDNN 9.0.0 support matrix"},
    {"9.0.0", "9.10.2", 11, "11.0", "11.8", "cuDNN 9.0.0-9.10.2 support matrix (CUDA 11.x)"},
    {"9.5.0", "9.5.1", 12, "12.0", "12.6", "cuDNN 9.5.x support matrix"},
    {"9.10.2", "9.10.2", 12, "12.0", "12.9", "cuDNN 9.10.2 support matrix"},
    {"9.17.0", "9.17.1", 13, "13.0", "13.1", "cuDNN 9.17.0 support matrix"},
    {"9.17.0", "9.17.1", 12, "12.0", "12.9", "cuDNN 9.17.0 support matrix"},
};
const size_t cc_toolkit_range_count = sizeof(cc_toolkit_ranges) / sizeof(cc_toolkit_ranges[0]);

/* §4.4 (PyTorch wheels) and §4.3 (TensorFlow tested configurations). PyTorch wheels pin an exact
 * nvidia-cudnn wheel from 2.1 on; older releases and TensorFlow give the cuDNN they were built
 * with, and need the same major with an equal or higher minor at run time. */
const cc_consumer_pin cc_consumer_pins[] = {
    {"torch", "1.12.0", "1.12.1", "11.3", "8.3.2", 0, "pytorch/pytorch#80637"},
    {"torch", "2.0.0", "2.0.1", "11.8", "8.7.0", 0, "bmaltais/kohya_ss#1096"},
    {"torch", "2.1.0", "2.1.2", "12.1", "8.9.2.26", 1, "pytorch/pytorch#104757"},
    {"torch", "2.2.0", "2.3.1", "12.1", "8.9.2.26", 1, "rdyro/torch2jax#29"},
    {"torch", "2.4.0", "2.6.0", "12.1", "9.1.0.70", 1,
     "rdyro/torch2jax#29; pytorch/pytorch#193491"},
    {"torch", "2.4.0", "2.6.0", "12.4", "9.1.0.70", 1,
     "rdyro/torch2jax#29; pytorch/pytorch#193491"},
    {"torch", "2.6.0", "2.7.1", "11.8", "9.1.0.70", 1, "generate_binary_build_matrix.py"},
    {"torch", "2.6.0", "2.7.1", "12.6", "9.5.1.17", 1, "generate_binary_build_matrix.py"},
    {"torch", "2.7.0", "2.7.1", "12.8", "9.7.1.26", 1, "released cu128 wheel metadata"},
    {"torch", "2.9.1", "2.9.1", "12.8", "9.10.2.21", 1, "torch 2.9.1+cu128 Requires-Dist"},
    {"torch", "2.9.1", "2.9.1", "12.9", "9.10.2.21", 1, "torch 2.9.1+cu129 Requires-Dist"},
    {"torch", "2.9.1", "2.9.1", "13.0", "9.13.0.50", 1, "nvidia-cosmos/cosmos-predict2.5#147"},
    {"torch", "2.11.0", "2.11.0", "13.0", "9.19.0.56", 1, "observed on the H200 image (pip show)"},
    {"torch", "2.12.1", "2.12.1", "13.0", "9.20.0.48", 1, "pytorch/pytorch#188892"},
    {"tensorflow", "2.18.0", "2.18.999", "12.5", "9.3", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.17.0", "2.17.999", "12.3", "8.9", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.16.1", "2.16.999", "12.3", "8.9", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.15.0", "2.15.999", "12.2", "8.9", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.14.0", "2.14.999", "11.8", "8.7", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.12.0", "2.13.999", "11.8", "8.6", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.5.0", "2.11.999", "11.2", "8.1", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.4.0", "2.4.999", "11.0", "8.0", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "2.1.0", "2.3.999", "10.1", "7.6", 0, "tensorflow/docs install/source.md"},
    {"tensorflow", "1.13.1", "2.0.999", "10.0", "7.4", 0, "tensorflow/docs install/source.md"},
};
const size_t cc_consumer_pin_count = sizeof(cc_consumer_pins) / sizeof(cc_consumer_pins[0]);
