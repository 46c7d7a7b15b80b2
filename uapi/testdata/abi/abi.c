/*
 * abi.c - prints the C layout of the DRM/vc4 uAPI structs, request numbers
 * and constants that vccube's Go code mirrors and that
 * the tables in ../uapi-layouts do not list (or lists only in part): the perfmon
 * structs, the syncobj create, destroy and handle structs, the plane,
 * property, blob and atomic structs, the sync_file structs (linux/sync_file.h), every field of drm_vc4_get_hang_state, drm_vc4_get_hang_state_bo,
 * drm_vc4_get_tiling, and the constants of drm.h, drm_mode.h, drm_fourcc.h
 * and vc4_drm.h. The output has the same format as ../uapi-layouts, so one
 * parser (uapi/internal/ctable) reads both.
 *
 * Build and run: see README.md beside this file.
 */
#include <stdio.h>
#include <stddef.h>
#include <fcntl.h> /* O_CLOEXEC, O_RDWR behind DRM_CLOEXEC, DRM_RDWR */
#include <drm.h>
#include <drm_mode.h>
#include <drm_fourcc.h>
#include <vc4_drm.h>
#include <linux/sync_file.h>

#define STRUCT(t) printf("%-34s size=%zu align=%zu\n", #t, sizeof(struct t), _Alignof(struct t))
#define FIELD(t, f) printf("  %-32s off=%-4zu size=%zu\n", #f, offsetof(struct t, f), sizeof(((struct t *)0)->f))
#define NUM(n) printf("%-36s 0x%08llx\n", #n, (unsigned long long)(n))

int main(void)
{
	printf("# Extra C layouts, request numbers and constants of the DRM and vc4 uAPI,\n");
	printf("# printed by uapi/testdata/abi/abi.c (see README.md there).\n");
	printf("sizeof(void*)=%zu sizeof(long)=%zu _Alignof(__u64)=%zu\n",
	       sizeof(void *), sizeof(long), _Alignof(__u64));

	STRUCT(drm_vc4_get_hang_state_bo);
	FIELD(drm_vc4_get_hang_state_bo, handle);
	FIELD(drm_vc4_get_hang_state_bo, paddr);
	FIELD(drm_vc4_get_hang_state_bo, size);
	FIELD(drm_vc4_get_hang_state_bo, pad);

	STRUCT(drm_vc4_get_hang_state);
	FIELD(drm_vc4_get_hang_state, bo);
	FIELD(drm_vc4_get_hang_state, bo_count);
	FIELD(drm_vc4_get_hang_state, start_bin);
	FIELD(drm_vc4_get_hang_state, start_render);
	FIELD(drm_vc4_get_hang_state, ct0ca);
	FIELD(drm_vc4_get_hang_state, ct0ea);
	FIELD(drm_vc4_get_hang_state, ct1ca);
	FIELD(drm_vc4_get_hang_state, ct1ea);
	FIELD(drm_vc4_get_hang_state, ct0cs);
	FIELD(drm_vc4_get_hang_state, ct1cs);
	FIELD(drm_vc4_get_hang_state, ct0ra0);
	FIELD(drm_vc4_get_hang_state, ct1ra0);
	FIELD(drm_vc4_get_hang_state, bpca);
	FIELD(drm_vc4_get_hang_state, bpcs);
	FIELD(drm_vc4_get_hang_state, bpoa);
	FIELD(drm_vc4_get_hang_state, bpos);
	FIELD(drm_vc4_get_hang_state, vpmbase);
	FIELD(drm_vc4_get_hang_state, dbge);
	FIELD(drm_vc4_get_hang_state, fdbgo);
	FIELD(drm_vc4_get_hang_state, fdbgb);
	FIELD(drm_vc4_get_hang_state, fdbgr);
	FIELD(drm_vc4_get_hang_state, fdbgs);
	FIELD(drm_vc4_get_hang_state, errstat);
	FIELD(drm_vc4_get_hang_state, pad);

	STRUCT(drm_vc4_get_tiling);
	FIELD(drm_vc4_get_tiling, handle);
	FIELD(drm_vc4_get_tiling, flags);
	FIELD(drm_vc4_get_tiling, modifier);

	STRUCT(drm_vc4_perfmon_create);
	FIELD(drm_vc4_perfmon_create, id);
	FIELD(drm_vc4_perfmon_create, ncounters);
	FIELD(drm_vc4_perfmon_create, events);

	STRUCT(drm_vc4_perfmon_destroy);
	FIELD(drm_vc4_perfmon_destroy, id);

	STRUCT(drm_vc4_perfmon_get_values);
	FIELD(drm_vc4_perfmon_get_values, id);
	FIELD(drm_vc4_perfmon_get_values, values_ptr);

	STRUCT(drm_syncobj_create);
	FIELD(drm_syncobj_create, handle);
	FIELD(drm_syncobj_create, flags);

	STRUCT(drm_syncobj_destroy);
	FIELD(drm_syncobj_destroy, handle);
	FIELD(drm_syncobj_destroy, pad);

	STRUCT(drm_mode_get_plane_res);
	FIELD(drm_mode_get_plane_res, plane_id_ptr);
	FIELD(drm_mode_get_plane_res, count_planes);

	STRUCT(drm_mode_get_plane);
	FIELD(drm_mode_get_plane, plane_id);
	FIELD(drm_mode_get_plane, crtc_id);
	FIELD(drm_mode_get_plane, fb_id);
	FIELD(drm_mode_get_plane, possible_crtcs);
	FIELD(drm_mode_get_plane, gamma_size);
	FIELD(drm_mode_get_plane, count_format_types);
	FIELD(drm_mode_get_plane, format_type_ptr);

	STRUCT(drm_mode_obj_get_properties);
	FIELD(drm_mode_obj_get_properties, props_ptr);
	FIELD(drm_mode_obj_get_properties, prop_values_ptr);
	FIELD(drm_mode_obj_get_properties, count_props);
	FIELD(drm_mode_obj_get_properties, obj_id);
	FIELD(drm_mode_obj_get_properties, obj_type);

	STRUCT(drm_mode_obj_set_property);
	FIELD(drm_mode_obj_set_property, value);
	FIELD(drm_mode_obj_set_property, prop_id);
	FIELD(drm_mode_obj_set_property, obj_id);
	FIELD(drm_mode_obj_set_property, obj_type);

	STRUCT(drm_mode_get_property);
	FIELD(drm_mode_get_property, values_ptr);
	FIELD(drm_mode_get_property, enum_blob_ptr);
	FIELD(drm_mode_get_property, prop_id);
	FIELD(drm_mode_get_property, flags);
	FIELD(drm_mode_get_property, name);
	FIELD(drm_mode_get_property, count_values);
	FIELD(drm_mode_get_property, count_enum_blobs);

	STRUCT(drm_mode_property_enum);
	FIELD(drm_mode_property_enum, value);
	FIELD(drm_mode_property_enum, name);

	STRUCT(drm_mode_get_blob);
	FIELD(drm_mode_get_blob, blob_id);
	FIELD(drm_mode_get_blob, length);
	FIELD(drm_mode_get_blob, data);

	STRUCT(drm_mode_create_blob);
	FIELD(drm_mode_create_blob, data);
	FIELD(drm_mode_create_blob, length);
	FIELD(drm_mode_create_blob, blob_id);

	STRUCT(drm_mode_destroy_blob);
	FIELD(drm_mode_destroy_blob, blob_id);

	STRUCT(drm_mode_atomic);
	FIELD(drm_mode_atomic, flags);
	FIELD(drm_mode_atomic, count_objs);
	FIELD(drm_mode_atomic, objs_ptr);
	FIELD(drm_mode_atomic, count_props_ptr);
	FIELD(drm_mode_atomic, props_ptr);
	FIELD(drm_mode_atomic, prop_values_ptr);
	FIELD(drm_mode_atomic, reserved);
	FIELD(drm_mode_atomic, user_data);

	STRUCT(drm_format_modifier_blob);
	FIELD(drm_format_modifier_blob, version);
	FIELD(drm_format_modifier_blob, flags);
	FIELD(drm_format_modifier_blob, count_formats);
	FIELD(drm_format_modifier_blob, formats_offset);
	FIELD(drm_format_modifier_blob, count_modifiers);
	FIELD(drm_format_modifier_blob, modifiers_offset);

	STRUCT(drm_format_modifier);
	FIELD(drm_format_modifier, formats);
	FIELD(drm_format_modifier, offset);
	FIELD(drm_format_modifier, pad);
	FIELD(drm_format_modifier, modifier);

	STRUCT(drm_syncobj_handle);
	FIELD(drm_syncobj_handle, handle);
	FIELD(drm_syncobj_handle, flags);
	FIELD(drm_syncobj_handle, fd);
	FIELD(drm_syncobj_handle, pad);

	STRUCT(sync_merge_data);
	FIELD(sync_merge_data, name);
	FIELD(sync_merge_data, fd2);
	FIELD(sync_merge_data, fence);
	FIELD(sync_merge_data, flags);
	FIELD(sync_merge_data, pad);

	STRUCT(sync_file_info);
	FIELD(sync_file_info, name);
	FIELD(sync_file_info, status);
	FIELD(sync_file_info, flags);
	FIELD(sync_file_info, num_fences);
	FIELD(sync_file_info, pad);
	FIELD(sync_file_info, sync_fence_info);

	STRUCT(sync_fence_info);
	FIELD(sync_fence_info, obj_name);
	FIELD(sync_fence_info, driver_name);
	FIELD(sync_fence_info, status);
	FIELD(sync_fence_info, flags);
	FIELD(sync_fence_info, timestamp_ns);

	printf("-- ioctls --\n");
	NUM(DRM_IOCTL_SYNCOBJ_CREATE);
	NUM(DRM_IOCTL_SYNCOBJ_DESTROY);
	NUM(DRM_IOCTL_MODE_GETPROPERTY);
	NUM(DRM_IOCTL_MODE_GETPROPBLOB);
	NUM(DRM_IOCTL_MODE_GETPLANERESOURCES);
	NUM(DRM_IOCTL_MODE_GETPLANE);
	NUM(DRM_IOCTL_MODE_OBJ_GETPROPERTIES);
	NUM(DRM_IOCTL_MODE_OBJ_SETPROPERTY);
	NUM(DRM_IOCTL_MODE_ATOMIC);
	NUM(DRM_IOCTL_MODE_CREATEPROPBLOB);
	NUM(DRM_IOCTL_MODE_DESTROYPROPBLOB);
	NUM(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD);
	NUM(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE);
	NUM(SYNC_IOC_MERGE);
	NUM(SYNC_IOC_FILE_INFO);
	NUM(DRM_IOCTL_VC4_GET_HANG_STATE);
	NUM(DRM_IOCTL_VC4_GET_TILING);
	NUM(DRM_IOCTL_VC4_PERFMON_CREATE);
	NUM(DRM_IOCTL_VC4_PERFMON_DESTROY);
	NUM(DRM_IOCTL_VC4_PERFMON_GET_VALUES);

	printf("-- constants --\n");
	NUM(DRM_SYNCOBJ_CREATE_SIGNALED);
	/* drm.h */
	NUM(DRM_COMMAND_BASE); NUM(DRM_COMMAND_END);
	NUM(DRM_CAP_DUMB_BUFFER); NUM(DRM_CAP_VBLANK_HIGH_CRTC);
	NUM(DRM_CAP_DUMB_PREFERRED_DEPTH); NUM(DRM_CAP_DUMB_PREFER_SHADOW);
	NUM(DRM_CAP_PRIME); NUM(DRM_PRIME_CAP_IMPORT); NUM(DRM_PRIME_CAP_EXPORT);
	NUM(DRM_CAP_TIMESTAMP_MONOTONIC); NUM(DRM_CAP_ASYNC_PAGE_FLIP);
	NUM(DRM_CAP_CURSOR_WIDTH); NUM(DRM_CAP_CURSOR_HEIGHT);
	NUM(DRM_CAP_ADDFB2_MODIFIERS); NUM(DRM_CAP_PAGE_FLIP_TARGET);
	NUM(DRM_CAP_CRTC_IN_VBLANK_EVENT); NUM(DRM_CAP_SYNCOBJ); NUM(DRM_CAP_SYNCOBJ_TIMELINE);
	NUM(DRM_CLIENT_CAP_STEREO_3D); NUM(DRM_CLIENT_CAP_UNIVERSAL_PLANES);
	NUM(DRM_CLIENT_CAP_ATOMIC); NUM(DRM_CLIENT_CAP_ASPECT_RATIO);
	NUM(DRM_CLIENT_CAP_WRITEBACK_CONNECTORS);
	NUM(DRM_CLOEXEC); NUM(DRM_RDWR);
	NUM(DRM_EVENT_VBLANK); NUM(DRM_EVENT_FLIP_COMPLETE); NUM(DRM_EVENT_CRTC_SEQUENCE);
	/* drm_mode.h */
	NUM(DRM_DISPLAY_MODE_LEN);
	NUM(DRM_MODE_PAGE_FLIP_EVENT); NUM(DRM_MODE_PAGE_FLIP_ASYNC);
	NUM(DRM_MODE_PAGE_FLIP_TARGET_ABSOLUTE); NUM(DRM_MODE_PAGE_FLIP_TARGET_RELATIVE);
	NUM(DRM_MODE_FB_INTERLACED); NUM(DRM_MODE_FB_MODIFIERS);
	NUM(DRM_MODE_TYPE_BUILTIN); NUM(DRM_MODE_TYPE_CLOCK_C); NUM(DRM_MODE_TYPE_CRTC_C);
	NUM(DRM_MODE_TYPE_PREFERRED); NUM(DRM_MODE_TYPE_DEFAULT);
	NUM(DRM_MODE_TYPE_USERDEF); NUM(DRM_MODE_TYPE_DRIVER);
	NUM(DRM_MODE_FLAG_PHSYNC); NUM(DRM_MODE_FLAG_NHSYNC); NUM(DRM_MODE_FLAG_PVSYNC);
	NUM(DRM_MODE_FLAG_NVSYNC); NUM(DRM_MODE_FLAG_INTERLACE); NUM(DRM_MODE_FLAG_DBLSCAN);
	NUM(DRM_MODE_FLAG_CSYNC); NUM(DRM_MODE_FLAG_PCSYNC); NUM(DRM_MODE_FLAG_NCSYNC);
	NUM(DRM_MODE_FLAG_HSKEW); NUM(DRM_MODE_FLAG_DBLCLK); NUM(DRM_MODE_FLAG_CLKDIV2);
	NUM(DRM_MODE_FLAG_3D_MASK); NUM(DRM_MODE_FLAG_PIC_AR_MASK);
	NUM(DRM_MODE_CONNECTOR_Unknown); NUM(DRM_MODE_CONNECTOR_VGA);
	NUM(DRM_MODE_CONNECTOR_DVII); NUM(DRM_MODE_CONNECTOR_DVID); NUM(DRM_MODE_CONNECTOR_DVIA);
	NUM(DRM_MODE_CONNECTOR_Composite); NUM(DRM_MODE_CONNECTOR_SVIDEO);
	NUM(DRM_MODE_CONNECTOR_LVDS); NUM(DRM_MODE_CONNECTOR_Component);
	NUM(DRM_MODE_CONNECTOR_9PinDIN); NUM(DRM_MODE_CONNECTOR_DisplayPort);
	NUM(DRM_MODE_CONNECTOR_HDMIA); NUM(DRM_MODE_CONNECTOR_HDMIB);
	NUM(DRM_MODE_CONNECTOR_TV); NUM(DRM_MODE_CONNECTOR_eDP);
	NUM(DRM_MODE_CONNECTOR_VIRTUAL); NUM(DRM_MODE_CONNECTOR_DSI);
	NUM(DRM_MODE_CONNECTOR_DPI); NUM(DRM_MODE_CONNECTOR_WRITEBACK);
	NUM(DRM_MODE_CONNECTOR_SPI); NUM(DRM_MODE_CONNECTOR_USB);
	NUM(DRM_MODE_ENCODER_NONE); NUM(DRM_MODE_ENCODER_DAC); NUM(DRM_MODE_ENCODER_TMDS);
	NUM(DRM_MODE_ENCODER_LVDS); NUM(DRM_MODE_ENCODER_TVDAC); NUM(DRM_MODE_ENCODER_VIRTUAL);
	NUM(DRM_MODE_ENCODER_DSI); NUM(DRM_MODE_ENCODER_DPMST); NUM(DRM_MODE_ENCODER_DPI);
	/* drm_fourcc.h */
	NUM(DRM_FORMAT_XRGB8888); NUM(DRM_FORMAT_ARGB8888); NUM(DRM_FORMAT_RGB565);
	NUM(DRM_FORMAT_MOD_VENDOR_BROADCOM); NUM(DRM_FORMAT_MOD_LINEAR);
	NUM(DRM_FORMAT_MOD_NONE); NUM(DRM_FORMAT_MOD_INVALID);
	NUM(DRM_FORMAT_MOD_BROADCOM_VC4_T_TILED);
	NUM(DRM_FORMAT_MOD_BROADCOM_SAND64); NUM(DRM_FORMAT_MOD_BROADCOM_SAND128);
	NUM(DRM_FORMAT_MOD_BROADCOM_SAND256);
	NUM(__fourcc_mod_broadcom_param_shift); NUM(__fourcc_mod_broadcom_param_bits);
	/* vc4_drm.h */
	NUM(DRM_VC4_SUBMIT_CL); NUM(DRM_VC4_WAIT_SEQNO); NUM(DRM_VC4_WAIT_BO);
	NUM(DRM_VC4_CREATE_BO); NUM(DRM_VC4_MMAP_BO); NUM(DRM_VC4_CREATE_SHADER_BO);
	NUM(DRM_VC4_GET_HANG_STATE); NUM(DRM_VC4_GET_PARAM); NUM(DRM_VC4_SET_TILING);
	NUM(DRM_VC4_GET_TILING); NUM(DRM_VC4_LABEL_BO); NUM(DRM_VC4_GEM_MADVISE);
	NUM(DRM_VC4_PERFMON_CREATE); NUM(DRM_VC4_PERFMON_DESTROY); NUM(DRM_VC4_PERFMON_GET_VALUES);
	NUM(VC4_SUBMIT_RCL_SURFACE_READ_IS_FULL_RES);
	NUM(VC4_SUBMIT_CL_USE_CLEAR_COLOR); NUM(VC4_SUBMIT_CL_FIXED_RCL_ORDER);
	NUM(VC4_SUBMIT_CL_RCL_ORDER_INCREASING_X); NUM(VC4_SUBMIT_CL_RCL_ORDER_INCREASING_Y);
	NUM(DRM_VC4_PARAM_V3D_IDENT0); NUM(DRM_VC4_PARAM_V3D_IDENT1); NUM(DRM_VC4_PARAM_V3D_IDENT2);
	NUM(DRM_VC4_PARAM_SUPPORTS_BRANCHES); NUM(DRM_VC4_PARAM_SUPPORTS_ETC1);
	NUM(DRM_VC4_PARAM_SUPPORTS_THREADED_FS); NUM(DRM_VC4_PARAM_SUPPORTS_FIXED_RCL_ORDER);
	NUM(DRM_VC4_PARAM_SUPPORTS_MADVISE); NUM(DRM_VC4_PARAM_SUPPORTS_PERFMON);
	NUM(VC4_MADV_WILLNEED); NUM(VC4_MADV_DONTNEED); NUM(__VC4_MADV_PURGED); NUM(__VC4_MADV_NOTSUPP);
	NUM(DRM_VC4_MAX_PERF_COUNTERS);
	NUM(VC4_PERFCNT_FEP_VALID_PRIMS_NO_RENDER); NUM(VC4_PERFCNT_FEP_VALID_PRIMS_RENDER);
	NUM(VC4_PERFCNT_FEP_CLIPPED_QUADS); NUM(VC4_PERFCNT_FEP_VALID_QUADS);
	NUM(VC4_PERFCNT_TLB_QUADS_NOT_PASSING_STENCIL);
	NUM(VC4_PERFCNT_TLB_QUADS_NOT_PASSING_Z_AND_STENCIL);
	NUM(VC4_PERFCNT_TLB_QUADS_PASSING_Z_AND_STENCIL);
	NUM(VC4_PERFCNT_TLB_QUADS_ZERO_COVERAGE); NUM(VC4_PERFCNT_TLB_QUADS_NON_ZERO_COVERAGE);
	NUM(VC4_PERFCNT_TLB_QUADS_WRITTEN_TO_COLOR_BUF);
	NUM(VC4_PERFCNT_PLB_PRIMS_OUTSIDE_VIEWPORT); NUM(VC4_PERFCNT_PLB_PRIMS_NEED_CLIPPING);
	NUM(VC4_PERFCNT_PSE_PRIMS_REVERSED); NUM(VC4_PERFCNT_QPU_TOTAL_IDLE_CYCLES);
	NUM(VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_VERTEX_COORD_SHADING);
	NUM(VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_FRAGMENT_SHADING);
	NUM(VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_EXEC_VALID_INST);
	NUM(VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_TMUS);
	NUM(VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_SCOREBOARD);
	NUM(VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_VARYINGS);
	NUM(VC4_PERFCNT_QPU_TOTAL_INST_CACHE_HIT); NUM(VC4_PERFCNT_QPU_TOTAL_INST_CACHE_MISS);
	NUM(VC4_PERFCNT_QPU_TOTAL_UNIFORM_CACHE_HIT); NUM(VC4_PERFCNT_QPU_TOTAL_UNIFORM_CACHE_MISS);
	NUM(VC4_PERFCNT_TMU_TOTAL_TEXT_QUADS_PROCESSED); NUM(VC4_PERFCNT_TMU_TOTAL_TEXT_CACHE_MISS);
	NUM(VC4_PERFCNT_VPM_TOTAL_CLK_CYCLES_VDW_STALLED);
	NUM(VC4_PERFCNT_VPM_TOTAL_CLK_CYCLES_VCD_STALLED);
	NUM(VC4_PERFCNT_L2C_TOTAL_L2_CACHE_HIT); NUM(VC4_PERFCNT_L2C_TOTAL_L2_CACHE_MISS);
	NUM(VC4_PERFCNT_NUM_EVENTS);
	NUM(DRM_PROP_NAME_LEN);
	NUM(DRM_MODE_ATOMIC_TEST_ONLY); NUM(DRM_MODE_ATOMIC_NONBLOCK); NUM(DRM_MODE_ATOMIC_ALLOW_MODESET);
	NUM(DRM_MODE_ATOMIC_FLAGS);
	NUM(DRM_MODE_PROP_PENDING); NUM(DRM_MODE_PROP_RANGE); NUM(DRM_MODE_PROP_IMMUTABLE);
	NUM(DRM_MODE_PROP_ENUM); NUM(DRM_MODE_PROP_BLOB); NUM(DRM_MODE_PROP_BITMASK);
	NUM(DRM_MODE_PROP_LEGACY_TYPE); NUM(DRM_MODE_PROP_EXTENDED_TYPE);
	NUM(DRM_MODE_PROP_OBJECT); NUM(DRM_MODE_PROP_SIGNED_RANGE); NUM(DRM_MODE_PROP_ATOMIC);
	NUM(DRM_MODE_OBJECT_CRTC); NUM(DRM_MODE_OBJECT_CONNECTOR); NUM(DRM_MODE_OBJECT_ENCODER);
	NUM(DRM_MODE_OBJECT_MODE); NUM(DRM_MODE_OBJECT_PROPERTY); NUM(DRM_MODE_OBJECT_FB);
	NUM(DRM_MODE_OBJECT_BLOB); NUM(DRM_MODE_OBJECT_PLANE); NUM(DRM_MODE_OBJECT_ANY);
	NUM(DRM_MODE_ROTATE_0); NUM(DRM_MODE_ROTATE_90); NUM(DRM_MODE_ROTATE_180); NUM(DRM_MODE_ROTATE_270);
	NUM(DRM_MODE_ROTATE_MASK); NUM(DRM_MODE_REFLECT_X); NUM(DRM_MODE_REFLECT_Y);
	NUM(DRM_MODE_DPMS_ON); NUM(DRM_MODE_DPMS_STANDBY); NUM(DRM_MODE_DPMS_SUSPEND); NUM(DRM_MODE_DPMS_OFF);
	NUM(DRM_MODE_LINK_STATUS_GOOD); NUM(DRM_MODE_LINK_STATUS_BAD);
	NUM(FORMAT_BLOB_CURRENT);
	NUM(DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE);
	NUM(DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE);
	return 0;
}
