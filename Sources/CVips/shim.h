#include <vips/vips.h>

/* libvips's calls are variadic (options as name, value pairs ending in NULL): fixed-signature
   wrappers for the few Soar makes. Started once, with no operation cache (each render is new
   work on a new file) and one thread per render (the HTTP threads run renders side by side).
   No run-time compiled (ORC) code: Debian 12's liborc 0.4.33 frees the memory of compiled code
   without the lock it allocates it under, and renders side by side (each compiles and frees its
   resize code) corrupted the heap: 5 crashes with ORC on, none in 110 stress rounds with it off. */
static inline int CVips_start(void) {
    if (VIPS_INIT("soar")) return -1;
    vips_vector_set_enabled(FALSE);
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    return 0;
}

/* Whether libvips runs run-time compiled (ORC) code: off once started (see CVips_start). */
static inline int CVips_compiles_code(void) { return vips_vector_isenabled(); }

/* The image's header only (its pixels are not decoded): width, height, and which loader reads it. */
static inline VipsImage *CVips_header(const char *path) { return vips_image_new_from_file(path, NULL); }
static inline const char *CVips_loader(const char *path) { return vips_foreign_find_load(path); }

/* Shrink-on-load thumbnails. mode 0: cover (fill the box, crop the centre), 1: contain (fit
   inside), 2: fill (stretch to the box). Never enlarged, except by fill. */
static inline int CVips_thumbnail(const char *path, VipsImage **out, int width, int height, int mode) {
    switch (mode) {
    case 0: return vips_thumbnail(path, out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, "size", VIPS_SIZE_DOWN, NULL);
    case 2: return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL);
    default: return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
    }
}

/* Encodes into a buffer g_malloc'ed by libvips. format 0: JPEG (alpha flattened on white), 1: PNG, 2: WebP. */
static inline int CVips_save(VipsImage *in, int format, int quality, void **buffer, size_t *length) {
    switch (format) {
    case 0: {
        VipsImage *flat = NULL;
        if (vips_image_hasalpha(in)) {
            double white[3] = {255, 255, 255};
            VipsArrayDouble *background = vips_array_double_new(white, 3);
            int failed = vips_flatten(in, &flat, "background", background, NULL);
            vips_area_unref((VipsArea *)background);
            if (failed) return -1;
        }
        int result = vips_jpegsave_buffer(flat ? flat : in, buffer, length, "Q", quality, "strip", TRUE, NULL);
        if (flat) g_object_unref(flat);
        return result;
    }
    case 1: return vips_pngsave_buffer(in, buffer, length, "strip", TRUE, NULL);
    default: return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
    }
}

static inline void CVips_unref(VipsImage *image) { g_object_unref(image); }
static inline void CVips_free(void *buffer) { g_free(buffer); }
