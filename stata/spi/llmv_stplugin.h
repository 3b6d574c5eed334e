/*
 * llmv_stplugin.h: the Stata Plugin Interface (SPI), version 3.0, as the plugin and the
 * test host see it. Written for this project from the documented facts; it is not
 * StataCorp's stplugin.h and shares none of its text.
 *
 * Where each fact comes from:
 *  [P]   https://www.stata.com/plugins/ ("Creating and using Stata plugins", SPI 3.0): a plugin
 *        is a shared library exporting pginit() and stata_call(); Stata calls pginit() once with
 *        its table of entry points and the plugin returns the interface version it was built
 *        for; stata_call(argc, argv) runs each `plugin call`, receiving the words after the
 *        comma; on Linux the plugin is compiled with SYSTEM=OPUNIX; SPI 3.0 needs Stata 14.1 or
 *        later and adds strL access (SF_var_is_strl, SF_sdatalen, SF_strldata,
 *        SF_var_is_binary); SF_sstore/SF_sdata do not handle strL; variables are indexed by
 *        their position in the varlist given to `plugin call` (1-based), observations 1-based;
 *        locals are reached by prefixing their name with "_"; matrices must exist (with their
 *        final size) before a plugin stores into them; missing values compare >= SV_missval.
 *  [ABI] The order and C types of the members of the function table, and the version word
 *        (major in the low 16 bits, minor in the high 16 bits, so 3.0 is 3), as published with
 *        SPI 3.0 on the same page. The member names below are ours. The static_asserts at the
 *        end pin the x86-64 layout: 58 eight-byte slots, 464 bytes.
 *  [M]   Stata's missing values: `.` is the smallest missing value, 2^1023 in IEEE double; the
 *        extended missing values .a to .z are larger ([U] 12.2.1 Missing values).
 */
#ifndef LLMV_STPLUGIN_H
#define LLMV_STPLUGIN_H

/* [P] The documented platform switch. Linux is built and tested here, Windows x64 (STWIN32, also
 * for 64-bit Windows) is cross-compiled and run under wine; macOS (APPLEMAC) builds with the CMake
 * presets (stata/README.md). The x64 layout of the table is the same on all three (LLP64 changes
 * only the size of long, which the table does not use). */
#define LLMV_SYSTEM_HP9000 1
#define LLMV_SYSTEM_OPUNIX 2
#define LLMV_SYSTEM_APPLEMAC 3
#define LLMV_SYSTEM_STWIN32 4
#ifndef SYSTEM
#error "compile with -DSYSTEM=OPUNIX (Linux), as the plugin documentation prescribes"
#endif
#define OPUNIX LLMV_SYSTEM_OPUNIX
#define APPLEMAC LLMV_SYSTEM_APPLEMAC
#define STWIN32 LLMV_SYSTEM_STWIN32
#if SYSTEM != LLMV_SYSTEM_OPUNIX && SYSTEM != LLMV_SYSTEM_APPLEMAC && SYSTEM != LLMV_SYSTEM_STWIN32
#error "this build supports SYSTEM=OPUNIX (Linux), APPLEMAC (macOS) and STWIN32 (Windows) only"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* [ABI] Scalar types of the interface. */
typedef signed char ST_sbyte;
typedef unsigned char ST_ubyte;
typedef int ST_int;
typedef unsigned ST_unsigned;
typedef short ST_int2;
typedef int ST_int4;
typedef long ST_long;
typedef unsigned int ST_uint4;
typedef float ST_float;
typedef double ST_double;
typedef unsigned char ST_boolean;
typedef int ST_retcode;
typedef double* ST_dmkey;

typedef struct {
    ST_int type;
    ST_int nel;
    ST_int m;
    ST_int n;
} ST_matinfo;

/* [P][ABI] SPI 3.0: major 3, minor 0, packed as major | minor << 16. */
#define LLMV_SPI_MAJOR 3
#define LLMV_SPI_MINOR 0
#define SD_PLUGINVER ((ST_int4)((ST_int2)LLMV_SPI_MAJOR | ((ST_int4)(ST_int2)LLMV_SPI_MINOR) << 16))

/* [ABI] The table Stata hands to pginit(), member by member in the published order. The
 * comment after each member gives the documented SF_ name where there is one. Members the
 * plugin never uses are kept for the layout. */
typedef struct {
    ST_int (*display_smcl)(char* text); /* SF_display */
    ST_int (*display_plain)(char* text);
    void (*flush_output)(void);
    void (*set_output_level)(ST_ubyte level);
    ST_int (*read_input)(char* buffer, ST_int length);
    ST_int (*poll_standard)(void); /* SF_poll */
    ST_int (*poll_now)(void);
    char* (*reformat_short)(char* out, char* format, ST_double value);
    char* (*reformat_long)(char* out, char* format, ST_double value, ST_dmkey key);
    char* (*next_token)(char* text, ST_int flags);
    ST_int (*macro_save)(char* name, char* value);                /* SF_macro_save */
    ST_int (*macro_use)(char* name, char* buffer, ST_int length); /* SF_macro_use */
    ST_int (*scalar_use)(char* name, ST_double* value);           /* SF_scal_use */
    ST_int (*scalar_save_by_pointer)(char* name, ST_double* value);
    ST_int (*matrix_store_block)(char* name, ST_int flags, ST_double* values, ST_int a, ST_int b,
                                 ST_int c, ST_int d, ST_int e);
    ST_int (*matrix_load_block)(char* name, ST_double* values, ST_int length);
    void (*matrix_info)(char* name, ST_matinfo* info);
    ST_int (*matrix_element_v1)(char* name, ST_int row, ST_int col, ST_double* value);
    ST_int matsize; /* SV_matsize */
    ST_double (*data_fast_v1)(ST_int var, ST_int obs);
    ST_double (*data_safe_v1)(ST_int var, ST_int obs);
    ST_int (*nobs)(void);                      /* SF_nobs */
    ST_int (*nvar)(void);                      /* SF_nvar */
    ST_double missval;                         /* SV_missval */
    ST_boolean (*is_missing)(ST_double value); /* SF_is_missing */
    ST_int (*find_variable)(char* name, ST_int flags);
    ST_boolean (*var_is_string)(ST_int var); /* SF_var_is_string */
    void (*abbreviate_variable)(char* name, ST_double width);
    ST_int* stopflag; /* SW_stopflag */
    ST_double (*round_fn)(ST_double x, ST_double y);
    ST_double (*sqrt_fn)(ST_double x);
    ST_double (*pow_fn)(ST_double x, ST_double y);
    ST_double (*log_fn)(ST_double x);
    ST_double (*exp_fn)(ST_double x);
    ST_double (*random_fn)(void);
    ST_int (*store_fast)(ST_int var, ST_int obs, ST_double value);
    ST_int (*store_safe)(ST_int var, ST_int obs, ST_double value); /* SF_vstore */
    ST_int (*store_string)(ST_int var, ST_int obs, char* value);   /* SF_sstore */
    ST_boolean (*if_obs)(ST_int obs);                              /* SF_ifobs */
    ST_int (*in_first)(void);                                      /* SF_in1 */
    ST_int (*in_last)(void);                                       /* SF_in2 */
    ST_int (*nvars)(void);                                         /* SF_nvars */
    ST_int (*display_error)(char* text);                           /* SF_error */
    ST_int (*matrix_element_safe)(char* name, ST_int row, ST_int col,
                                  ST_double* value); /* SF_mat_el */
    ST_int (*matrix_store_safe)(char* name, ST_int row, ST_int col,
                                ST_double value); /* SF_mat_store */
    ST_int (*matrix_element_fast)(char* name, ST_int row, ST_int col, ST_double* value);
    ST_int (*matrix_store_fast)(char* name, ST_int row, ST_int col, ST_double value);
    ST_int (*vdata_safe)(ST_int var, ST_int obs, ST_double* value); /* SF_vdata */
    ST_int (*vdata_fast)(ST_int var, ST_int obs, ST_double* value);
    ST_int (*cols_of)(char* name);                               /* SF_col */
    ST_int (*rows_of)(char* name);                               /* SF_row */
    ST_int (*scalar_save)(char* name, ST_double value);          /* SF_scal_save */
    ST_int (*string_data)(ST_int var, ST_int obs, char* buffer); /* SF_sdata */
    /* Added in SPI 3.0 (Stata 14.1). */
    ST_int2 major;
    ST_int2 minor;
    ST_boolean (*var_is_strl)(ST_int var);                                    /* SF_var_is_strl */
    ST_boolean (*var_is_binary)(ST_int var, ST_int obs);                      /* SF_var_is_binary */
    ST_int (*string_length)(ST_int var, ST_int obs);                          /* SF_sdatalen */
    ST_int (*strl_data)(ST_int var, ST_int obs, char* buffer, ST_int length); /* SF_strldata */
} ST_plugin;

/* [P] The two symbols a plugin exports, and nothing else. */
ST_retcode pginit(ST_plugin* table);
ST_retcode stata_call(int argc, char* argv[]);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* [ABI] An ABI slip (a missing, added or reordered member) fails the build, not a user. */
#if defined(__x86_64__) || defined(_M_X64)
#ifdef __cplusplus
#include <cstddef>
#define LLMV_STATIC_ASSERT static_assert
#else
#include <stddef.h>
#define LLMV_STATIC_ASSERT _Static_assert
#endif
LLMV_STATIC_ASSERT(sizeof(ST_plugin) == 464, "ST_plugin must be 464 bytes on x86-64");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, display_smcl) == 0, "SF_display slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, poll_standard) == 40, "SF_poll slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, macro_save) == 80, "SF_macro_save slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, macro_use) == 88, "SF_macro_use slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, matsize) == 144, "SV_matsize slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, nobs) == 168, "SF_nobs slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, missval) == 184, "SV_missval slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, stopflag) == 224, "SW_stopflag slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, store_safe) == 288, "SF_vstore slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, store_string) == 296, "SF_sstore slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, if_obs) == 304, "SF_ifobs slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, nvars) == 328, "SF_nvars slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, display_error) == 336, "SF_error slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, matrix_store_safe) == 352, "SF_mat_store slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, vdata_safe) == 376, "SF_vdata slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, scalar_save) == 408, "SF_scal_save slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, string_data) == 416, "SF_sdata slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, major) == 424, "SPI 3.0 version words");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, var_is_strl) == 432, "SF_var_is_strl slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, string_length) == 448, "SF_sdatalen slot");
LLMV_STATIC_ASSERT(offsetof(ST_plugin, strl_data) == 456, "SF_strldata slot");
LLMV_STATIC_ASSERT(SD_PLUGINVER == 3, "SPI 3.0 is version word 3");
#undef LLMV_STATIC_ASSERT
#endif

#endif /* LLMV_STPLUGIN_H */
