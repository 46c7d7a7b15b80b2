/*
 * peer: vkcube's scene drawn by Mesa's llvmpipe (through OSMesa), the
 * benchmark peer of vccube's simulated GPU. It draws the frames vccube
 * draws — same mesh, camera, turn, texture, lighting and size — and prints
 * the CPU time per frame, so that bench/llvmpipe/compare can set the two
 * side by side. It is a benchmark, not a test: nothing in `go test ./...`
 * or CI builds it. See README.md beside this file.
 *
 *   peer -mode WxH -frames N -texture FILE.ppm [-capture-frame K -capture OUT.ppm]
 *
 * Like `vccube -device sim -vsync=false -frames N`, it renders frames 0 to
 * N-1 (frame k: the cube turned by 4k degrees), each one finished
 * (glFinish) before the next, and leaves frame 0 out of the figures (it
 * pays for compiling the shaders, as vccube's frame 0 pays for its setup).
 * CPU time is the process's (CLOCK_PROCESS_CPUTIME_ID: every thread,
 * llvmpipe's rasterizer threads included) from frame 1's start to the end
 * of frame N-1, over the N-1 frames; a -capture's read-back and file
 * write are not counted. The output is one line of key=value pairs.
 *
 * The scene, from vkcube (KhronosGroup/Vulkan-Tools cube/cube.c, cube.vert,
 * cube.frag) as vccube restates it in math/scene and shaders/:
 *   - the 36 vertices and their (u, v): cube.c g_vertex_buffer_data and
 *     g_uv_buffer_data (math/scene mesh.go);
 *   - camera: eye (0, 3, 5) looking at the origin, up +y; 45° vertical
 *     field of view, near 0.1, far 100 (cube.c demo_init); vccube keeps
 *     OpenGL's projection with aspect width/height over the whole frame
 *     (math/scene scene.go New), which is what this program does too;
 *   - the turn: about +y by 4° per frame (cube.c demo_init spin_angle,
 *     demo_update_data_buffer; math/scene AngleForFrame);
 *   - back faces culled, counter-clockwise front faces, depth test
 *     LESS_OR_EQUAL on a 16-bit depth buffer cleared to 1, clear colour
 *     0.2 grey (cube.c demo_prepare_pipeline, demo_draw_build_cmd);
 *   - an R8G8B8A8_SRGB texture sampled NEAREST with CLAMP_TO_EDGE, its
 *     rows stored top row first (cube.c demo_prepare_textures,
 *     loadTexture);
 *   - colour = linearToSrgb(light · texel), linearToSrgb by hand, into a
 *     UNORM colour buffer (cube.frag);
 *   - light = max(0, dot(L, normalize(cross(dFdx p, dFdy p)))) with p the
 *     interpolated clip position (cube.frag). It is constant over a face,
 *     so vccube computes it once per face per frame on the CPU (math/scene
 *     scene.go faceLight) and passes it as a uniform; this program does
 *     the same, with the same formula, so both renderers do the same work
 *     per pixel: one texture lookup, the light, the sRGB encode.
 *
 * vccube gives the texture t = 1 - v and sets the TMU's FLIPY bit (math/
 * scene mesh.go); here the texture rows go to GL in the file's order (top
 * row first) and are sampled at vkcube's own (u, v), as vkcube does: the
 * same texel either way. The frame is drawn into a framebuffer object, so
 * that, as with vccube's colour buffer, the finished frame is in the
 * renderer's own memory and nothing is copied out unless asked (OSMesa
 * would copy its window-system buffer into the caller's memory at each
 * glFinish).
 */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/osmesa.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* cube.c g_vertex_buffer_data with g_uv_buffer_data: x, y, z, u, v per
 * vertex; faces -X, -Z, -Y, +Y, +X, +Z, two triangles each, each
 * counter-clockwise seen from outside. */
static const float mesh[36][5] = {
    {-1, -1, -1, 0, 1}, {-1, -1, 1, 1, 1}, {-1, 1, 1, 1, 0}, /* -X */
    {-1, 1, 1, 1, 0},   {-1, 1, -1, 0, 0}, {-1, -1, -1, 0, 1},
    {-1, -1, -1, 1, 1}, {1, 1, -1, 0, 0},  {1, -1, -1, 0, 1}, /* -Z */
    {-1, -1, -1, 1, 1}, {-1, 1, -1, 1, 0}, {1, 1, -1, 0, 0},
    {-1, -1, -1, 1, 0}, {1, -1, -1, 1, 1}, {1, -1, 1, 0, 1}, /* -Y */
    {-1, -1, -1, 1, 0}, {1, -1, 1, 0, 1},  {-1, -1, 1, 0, 0},
    {-1, 1, -1, 1, 0},  {-1, 1, 1, 0, 0},  {1, 1, 1, 0, 1}, /* +Y */
    {-1, 1, -1, 1, 0},  {1, 1, 1, 0, 1},   {1, 1, -1, 1, 1},
    {1, 1, -1, 1, 0},   {1, 1, 1, 0, 0},   {1, -1, 1, 0, 1}, /* +X */
    {1, -1, 1, 0, 1},   {1, -1, -1, 1, 1}, {1, 1, -1, 1, 0},
    {-1, 1, 1, 0, 0},   {-1, -1, 1, 0, 1}, {1, 1, 1, 1, 0}, /* +Z */
    {-1, -1, 1, 0, 1},  {1, -1, 1, 1, 1},  {1, 1, 1, 1, 0},
};

/* cube.frag's light direction, in vkcube's clip space. */
static const float light_dir[3] = {0.424f, 0.566f, 0.707f};

/* The vertex shader passes (u, v) on; cube.vert also passes the clip
 * position, which only the derivative lighting needs. */
static const char *vs_src =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 1) in vec2 uv;\n"
    "uniform mat4 mvp;\n"
    "out vec2 texcoord;\n"
    "void main() {\n"
    "    texcoord = uv;\n"
    "    gl_Position = mvp * vec4(position, 1.0);\n"
    "}\n";

/* cube.frag's colour, with the face's light as a uniform (see above). */
static const char *fs_src =
    "#version 330 core\n"
    "uniform sampler2D tex;\n"
    "uniform float light;\n"
    "in vec2 texcoord;\n"
    "out vec4 colour;\n"
    "float linearToSrgb(float l) {\n"
    "    return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;\n"
    "}\n"
    "void main() {\n"
    "    vec4 c = light * texture(tex, texcoord);\n"
    "    colour = vec4(linearToSrgb(c.r), linearToSrgb(c.g), linearToSrgb(c.b), c.a);\n"
    "}\n";

static void die(const char *what) {
    fprintf(stderr, "peer: %s\n", what);
    exit(1);
}

/* Column-major 4x4 matrices, as GL and mathgl store them. */
typedef float mat4[16];

static void mat4_mul(mat4 out, const mat4 a, const mat4 b) {
    mat4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

/* gluPerspective's matrix (mgl32.Perspective). */
static void perspective(mat4 m, float fovy, float aspect, float near, float far) {
    float f = 1.0f / tanf(fovy / 2);
    memset(m, 0, sizeof(mat4));
    m[0] = f / aspect;
    m[5] = f;
    m[10] = (near + far) / (near - far);
    m[11] = -1;
    m[14] = 2 * far * near / (near - far);
}

static void normalize3(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= l, v[1] /= l, v[2] /= l;
}

static void cross3(float out[3], const float a[3], const float b[3]) {
    float r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, r, sizeof r);
}

/* gluLookAt's matrix (mgl32.LookAtV). */
static void look_at(mat4 m, const float eye[3], const float centre[3], const float up[3]) {
    float f[3] = {centre[0] - eye[0], centre[1] - eye[1], centre[2] - eye[2]}, s[3], u[3];
    normalize3(f);
    cross3(s, f, up);
    normalize3(s);
    cross3(u, s, f);
    mat4 r = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0, 0, 0, 0, 1};
    for (int row = 0; row < 3; row++)
        r[12 + row] = -(r[row] * eye[0] + r[4 + row] * eye[1] + r[8 + row] * eye[2]);
    memcpy(m, r, sizeof r);
}

/* The turn about +y (mgl32.HomogRotate3DY, linmath's mat4x4_rotate_Y). */
static void rotate_y(mat4 m, float radians) {
    float c = cosf(radians), s = sinf(radians);
    mat4 r = {c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1};
    memcpy(m, r, sizeof r);
}

/* face_light is math/scene's faceLight: cube.frag's light on the face
 * whose first triangle starts at vertex i, and whether the face turns
 * towards the camera (0 for an edge-on face, which covers no pixel). The
 * light is computed in vkcube's clip space, (x·aspect, -y, z) of ours,
 * because vkcube's projection has aspect 1 and a negated y. */
static int face_light(const mat4 mvp, float aspect, int i, float *light) {
    float c[3][4];
    for (int v = 0; v < 3; v++)
        for (int row = 0; row < 4; row++)
            c[v][row] = mvp[row] * mesh[i + v][0] + mvp[4 + row] * mesh[i + v][1] +
                        mvp[8 + row] * mesh[i + v][2] + mvp[12 + row];
    /* The sign of the triangle's area in window coordinates (y up), with
     * every w > 0: positive is counter-clockwise, a front face. */
    float det = c[0][0] * (c[1][1] * c[2][3] - c[1][3] * c[2][1]) -
                c[0][1] * (c[1][0] * c[2][3] - c[1][3] * c[2][0]) +
                c[0][3] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
    float k[3] = {aspect, -1, 1}, e1[3], e2[3], n[3];
    for (int a = 0; a < 3; a++) {
        e1[a] = c[1][a] * k[a] - c[0][a] * k[a];
        e2[a] = c[2][a] * k[a] - c[0][a] * k[a];
    }
    cross3(n, e1, e2);
    if (det == 0) return 0;
    /* In vkcube's framebuffer (y down) a front face has negative area, and
     * cross(dFdx, dFdy) points along -cross(e1, e2). */
    float sign = det > 0 ? -1 : 1;
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    float d = len == 0 ? 0 : sign * (light_dir[0] * n[0] + light_dir[1] * n[1] + light_dir[2] * n[2]) / len;
    *light = d < 0 ? 0 : d;
    return det > 0;
}

static double seconds(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) die("clock_gettime failed");
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* read_ppm reads a binary PPM (P6, maxval 255) into RGBA, top row first,
 * as cube.c loadTexture does. */
static unsigned char *read_ppm(const char *path, int *w, int *h) {
    FILE *f = fopen(path, "rb");
    int maxval;
    if (!f) {
        fprintf(stderr, "peer: cannot open the texture %s: %s\n", path, strerror(errno));
        exit(1);
    }
    if (fscanf(f, "P6 %d %d %d", w, h, &maxval) != 3 || maxval != 255 || *w <= 0 || *h <= 0 || *w > 4096 ||
        *h > 4096 || fgetc(f) == EOF)
        die("the texture is not a binary PPM (P6, maxval 255, at most 4096x4096); write one with "
            "go run ./internal/cmd/writepng FILE.ppm");
    size_t n = (size_t)*w * *h;
    unsigned char *rgba = malloc(4 * n);
    if (!rgba) die("out of memory");
    for (size_t p = 0; p < n; p++) {
        if (fread(rgba + 4 * p, 1, 3, f) != 3) die("the texture file is cut short");
        rgba[4 * p + 3] = 255;
    }
    fclose(f);
    return rgba;
}

/* write_ppm writes the colour buffer as a binary PPM, top row first (GL's
 * row 0 is the bottom one). */
static void write_ppm(const char *path, int w, int h) {
    unsigned char *px = malloc((size_t)4 * w * h);
    if (!px) die("out of memory");
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "peer: cannot write the capture %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    for (int y = h - 1; y >= 0; y--)
        for (int x = 0; x < w; x++) fwrite(px + 4 * ((size_t)y * w + x), 1, 3, f);
    if (fclose(f) != 0) die("writing the capture failed");
    free(px);
}

static GLuint compile(GLenum kind, const char *src) {
    GLuint s = glCreateShader(kind);
    GLint ok;
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "peer: shader: %s\n", log);
        exit(1);
    }
    return s;
}

static void usage(void) {
    die("usage: peer -mode WxH -frames N -texture FILE.ppm [-capture-frame K -capture OUT.ppm]");
}

int main(int argc, char **argv) {
    int width = 0, height = 0, frames = 0, capture_frame = -1;
    const char *texture = NULL, *capture = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "-mode")) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2) usage();
        } else if (!strcmp(argv[i], "-frames")) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-texture")) {
            texture = argv[++i];
        } else if (!strcmp(argv[i], "-capture-frame")) {
            capture_frame = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-capture")) {
            capture = argv[++i];
        } else {
            usage();
        }
    }
    if (width < 1 || height < 1 || width > 4096 || height > 4096 || frames < 2 || !texture ||
        (capture_frame >= 0) != (capture != NULL) || capture_frame >= frames)
        usage();

    /* A core profile context; its window-system buffer is never drawn. */
    const int attribs[] = {OSMESA_FORMAT, OSMESA_RGBA, OSMESA_DEPTH_BITS, 0, OSMESA_PROFILE, OSMESA_CORE_PROFILE,
                           OSMESA_CONTEXT_MAJOR_VERSION, 3, OSMESA_CONTEXT_MINOR_VERSION, 3, 0};
    OSMesaContext ctx = OSMesaCreateContextAttribs(attribs, NULL);
    static unsigned char dummy[4 * 4 * 4];
    if (!ctx || !OSMesaMakeCurrent(ctx, dummy, GL_UNSIGNED_BYTE, 4, 4))
        die("OSMesa cannot make a GL 3.3 core context (is Mesa's libOSMesa built with llvmpipe?)");

    /* The frame: RGBA8 UNORM colour and 16-bit depth (cube.c: D16_UNORM). */
    GLuint fbo, rb[2];
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glGenRenderbuffers(2, rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) die("the framebuffer is incomplete");
    glViewport(0, 0, width, height);

    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, vs_src));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, fs_src));
    glLinkProgram(prog);
    GLint ok;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) die("the shaders do not link");
    glUseProgram(prog);
    GLint u_mvp = glGetUniformLocation(prog, "mvp"), u_light = glGetUniformLocation(prog, "light");
    glUniform1i(glGetUniformLocation(prog, "tex"), 0);

    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof mesh, mesh, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 5 * sizeof(float), (void *)0);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 5 * sizeof(float), (void *)(3 * sizeof(float)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);

    int tw, th;
    unsigned char *rgba = read_ppm(texture, &tw, &th);
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, tw, th, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    free(rgba);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);

    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glClearColor(0.2f, 0.2f, 0.2f, 1.0f);
    glClearDepth(1.0);
    if (glGetError() != GL_NO_ERROR) die("GL setup failed");

    const float eye[3] = {0, 3, 5}, centre[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    const float aspect = (float)width / height, pi = 3.14159265358979f;
    mat4 proj, view, viewproj;
    perspective(proj, 45 * pi / 180, aspect, 0.1f, 100);
    look_at(view, eye, centre, up);
    mat4_mul(viewproj, proj, view);

    double cpu0 = 0, wall0 = 0, excluded = 0;
    for (int k = 0; k < frames; k++) {
        if (k == 1) cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
        mat4 model, mvp;
        rotate_y(model, (float)((k * 4) % 360) * pi / 180);
        mat4_mul(mvp, viewproj, model);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glUniformMatrix4fv(u_mvp, 1, GL_FALSE, mvp);
        for (int face = 0; face < 6; face++) {
            float light;
            if (!face_light(mvp, aspect, 6 * face, &light)) continue; /* culled anyway: not sent */
            glUniform1f(u_light, light);
            glDrawArrays(GL_TRIANGLES, 6 * face, 6);
        }
        glFinish();
        if (k == capture_frame) {
            double c = seconds(CLOCK_PROCESS_CPUTIME_ID);
            write_ppm(capture, width, height);
            excluded += seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
        }
    }
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0 - excluded, wall = seconds(CLOCK_MONOTONIC) - wall0;
    if (glGetError() != GL_NO_ERROR) die("GL rendering failed");

    const char *threads = getenv("LP_NUM_THREADS");
    printf("renderer=\"%s\" version=\"%s\" lp_num_threads=%s cpus=%ld size=%dx%d frames=%d cpu_seconds=%.6f "
           "cpu_ms_per_frame=%.4f wall_ms_per_frame=%.4f\n",
           (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION), threads ? threads : "default",
           sysconf(_SC_NPROCESSORS_ONLN), width, height, frames - 1, cpu, 1000 * cpu / (frames - 1),
           1000 * wall / (frames - 1));
    OSMesaDestroyContext(ctx);
    return 0;
}
