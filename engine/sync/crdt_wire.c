/* engine/sync/crdt_wire.c: the @dcl/ecs wire format: message encode/decode, component
 * numbers from names, and core::Transform's 44 bytes. Every field is little-endian. */
#include "crdt.h"

#include <string.h>

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

const char *ty_crdt_reject_name(ty_crdt_reject why) {
  static const char *const names[TY_CRDT_REJECT_COUNT] = {
      "truncated", "short_length", "past_end", "too_large", "bad_size", "data_length",
  };
  return (unsigned)why < TY_CRDT_REJECT_COUNT ? names[why] : "unknown";
}

/* ---- decode ---- */

static ty_crdt_decode_status refuse(ty_crdt_reject reason, uint32_t skip, uint32_t *consumed, ty_crdt_reject *why) {
  *why = reason;
  *consumed = skip;
  return skip ? TY_CRDT_DECODE_SKIP : TY_CRDT_DECODE_STOP;
}

ty_crdt_decode_status ty_crdt_decode(const uint8_t *buf, size_t len, uint32_t max_message, ty_crdt_msg *msg,
                                     uint32_t *consumed, ty_crdt_reject *why) {
  memset(msg, 0, sizeof *msg);
  *consumed = 0;
  if (len == 0) return TY_CRDT_DECODE_END;
  if (len < TY_CRDT_HEADER_SIZE) return refuse(TY_CRDT_REJECT_TRUNCATED, 0, consumed, why);
  uint32_t length = rd32(buf), type = rd32(buf + 4);
  if (!max_message) max_message = TY_CRDT_DEFAULT_MAX_MESSAGE;
  if (length < TY_CRDT_HEADER_SIZE) return refuse(TY_CRDT_REJECT_SHORT_LENGTH, 0, consumed, why);
  /* The cap comes before the end check: a reader must not wait for gigabytes to arrive. */
  if (length > max_message) return refuse(TY_CRDT_REJECT_TOO_LARGE, length <= len ? length : 0, consumed, why);
  if (length > len) return refuse(TY_CRDT_REJECT_PAST_END, 0, consumed, why);

  const uint8_t *body = buf + TY_CRDT_HEADER_SIZE;
  msg->type = type;
  msg->length = length;
  switch (type) {
  case TY_CRDT_MSG_PUT_COMPONENT:
  case TY_CRDT_MSG_APPEND_VALUE:
  case TY_CRDT_MSG_PUT_COMPONENT_NETWORK: {
    uint32_t fixed = type == TY_CRDT_MSG_PUT_COMPONENT_NETWORK ? 28 : 24;
    if (length < fixed) return refuse(TY_CRDT_REJECT_BAD_SIZE, length, consumed, why);
    msg->entity = rd32(body);
    msg->component = rd32(body + 4);
    msg->timestamp = rd32(body + 8);
    if (type == TY_CRDT_MSG_PUT_COMPONENT_NETWORK) msg->network_id = rd32(body + 12);
    msg->data_len = rd32(buf + fixed - 4);
    if (msg->data_len != length - fixed) {
      memset(msg, 0, sizeof *msg);
      return refuse(TY_CRDT_REJECT_DATA_LENGTH, length, consumed, why);
    }
    msg->data = buf + fixed;
    break;
  }
  case TY_CRDT_MSG_DELETE_COMPONENT:
  case TY_CRDT_MSG_DELETE_COMPONENT_NETWORK:
    if (length != (type == TY_CRDT_MSG_DELETE_COMPONENT ? 20u : 24u))
      return refuse(TY_CRDT_REJECT_BAD_SIZE, length, consumed, why);
    msg->entity = rd32(body);
    msg->component = rd32(body + 4);
    msg->timestamp = rd32(body + 8);
    if (type == TY_CRDT_MSG_DELETE_COMPONENT_NETWORK) msg->network_id = rd32(body + 12);
    break;
  case TY_CRDT_MSG_DELETE_ENTITY:
    if (length != 12) return refuse(TY_CRDT_REJECT_BAD_SIZE, length, consumed, why);
    msg->entity = rd32(body);
    break;
  case TY_CRDT_MSG_DELETE_ENTITY_NETWORK:
    /* 7.28.0 declares 16; older writers declared 12 and wrote 16, which no reader can frame. */
    if (length != 16) return refuse(TY_CRDT_REJECT_BAD_SIZE, length, consumed, why);
    msg->entity = rd32(body);
    msg->network_id = rd32(body + 4);
    break;
  default:
    break; /* unknown: the caller skips it by length */
  }
  *consumed = length;
  return TY_CRDT_DECODED;
}

/* ---- encode ---- */

void ty_crdt_buf_free(ty_crdt_buf *b) {
  TY_FREE(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* Reserves n bytes at the end of b and returns where they start. */
static uint8_t *buf_extend(ty_crdt_buf *b, uint32_t n) {
  TY_ASSERT(n <= UINT32_MAX - b->len);
  TY_GROW(b->data, b->cap, b->len + n);
  uint8_t *p = b->data + b->len;
  b->len += n;
  return p;
}

static void write_with_data(ty_crdt_buf *b, uint32_t type, uint32_t entity, uint32_t component, uint32_t timestamp,
                            const uint32_t *network_id, const void *data, uint32_t len) {
  uint32_t fixed = network_id ? 28 : 24;
  TY_ASSERT(len <= UINT32_MAX - fixed);
  uint8_t *p = buf_extend(b, fixed + len);
  wr32(p, fixed + len);
  wr32(p + 4, type);
  wr32(p + 8, entity);
  wr32(p + 12, component);
  wr32(p + 16, timestamp);
  if (network_id) wr32(p + 20, *network_id);
  wr32(p + fixed - 4, len);
  if (len) memcpy(p + fixed, data, len);
}

void ty_crdt_write_put(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp, const void *data,
                       uint32_t len) {
  write_with_data(b, TY_CRDT_MSG_PUT_COMPONENT, entity, component, timestamp, NULL, data, len);
}

void ty_crdt_write_append(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp, const void *data,
                          uint32_t len) {
  write_with_data(b, TY_CRDT_MSG_APPEND_VALUE, entity, component, timestamp, NULL, data, len);
}

void ty_crdt_write_put_network(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp,
                               uint32_t network_id, const void *data, uint32_t len) {
  write_with_data(b, TY_CRDT_MSG_PUT_COMPONENT_NETWORK, entity, component, timestamp, &network_id, data, len);
}

void ty_crdt_write_delete_component(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp) {
  uint8_t *p = buf_extend(b, 20);
  wr32(p, 20);
  wr32(p + 4, TY_CRDT_MSG_DELETE_COMPONENT);
  wr32(p + 8, entity);
  wr32(p + 12, component);
  wr32(p + 16, timestamp);
}

void ty_crdt_write_delete_component_network(ty_crdt_buf *b, uint32_t entity, uint32_t component,
                                            uint32_t timestamp, uint32_t network_id) {
  uint8_t *p = buf_extend(b, 24);
  wr32(p, 24);
  wr32(p + 4, TY_CRDT_MSG_DELETE_COMPONENT_NETWORK);
  wr32(p + 8, entity);
  wr32(p + 12, component);
  wr32(p + 16, timestamp);
  wr32(p + 20, network_id);
}

void ty_crdt_write_delete_entity(ty_crdt_buf *b, uint32_t entity) {
  uint8_t *p = buf_extend(b, 12);
  wr32(p, 12);
  wr32(p + 4, TY_CRDT_MSG_DELETE_ENTITY);
  wr32(p + 8, entity);
}

void ty_crdt_write_delete_entity_network(ty_crdt_buf *b, uint32_t entity, uint32_t network_id) {
  uint8_t *p = buf_extend(b, 16);
  wr32(p, 16);
  wr32(p + 4, TY_CRDT_MSG_DELETE_ENTITY_NETWORK);
  wr32(p + 8, entity);
  wr32(p + 12, network_id);
}

/* ---- component numbers ---- */

/* components/generated/component-names.gen.js in @dcl/ecs 7.28.0. */
static const struct {
  const char *name;
  uint32_t id;
} core_components[] = {
    {"core::Transform", 1},
    {"core::Animator", 1042},
    {"core::AssetLoad", 1213},
    {"core::AssetLoadLoadingState", 1214},
    {"core::AudioAnalysis", 1212},
    {"core::AudioEvent", 1105},
    {"core::AudioSource", 1020},
    {"core::AudioStream", 1021},
    {"core::AvatarAttach", 1073},
    {"core::AvatarBase", 1087},
    {"core::AvatarEmoteCommand", 1088},
    {"core::AvatarEquippedData", 1091},
    {"core::AvatarLocomotionSettings", 1211},
    {"core::AvatarModifierArea", 1070},
    {"core::AvatarNametag", 1221},
    {"core::AvatarShape", 1080},
    {"core::Billboard", 1090},
    {"core::CameraMode", 1072},
    {"core::CameraModeArea", 1071},
    {"core::EngineInfo", 1048},
    {"core::ExplorerUiEventsResult", 1220},
    {"core::GltfContainer", 1041},
    {"core::GltfContainerLoadingState", 1049},
    {"core::GltfNodeModifiers", 1099},
    {"core::InputModifier", 1078},
    {"core::LightSource", 1079},
    {"core::MainCamera", 1075},
    {"core::MapPin", 1097},
    {"core::Material", 1017},
    {"core::MeshCollider", 1019},
    {"core::MeshRenderer", 1018},
    {"core::NftShape", 1040},
    {"core::ParticleSystem", 1217},
    {"core::PhysicsCombinedForce", 1216},
    {"core::PhysicsCombinedImpulse", 1215},
    {"core::PlayerIdentityData", 1089},
    {"core::PointerEvents", 1062},
    {"core::PointerEventsResult", 1063},
    {"core::PointerLock", 1074},
    {"core::PrimaryPointerInfo", 1209},
    {"core::Raycast", 1067},
    {"core::RaycastResult", 1068},
    {"core::RealmInfo", 1106},
    {"core::SkyboxTime", 1210},
    {"core::TextShape", 1030},
    {"core::TouchScreenControls", 1218},
    {"core::TriggerArea", 1060},
    {"core::TriggerAreaResult", 1061},
    {"core::Tween", 1102},
    {"core::TweenSequence", 1104},
    {"core::TweenState", 1103},
    {"core::UiBackground", 1053},
    {"core::UiCanvasInformation", 1054},
    {"core::UiDropdown", 1094},
    {"core::UiDropdownResult", 1096},
    {"core::UiInput", 1093},
    {"core::UiInputBinding", 1219},
    {"core::UiInputResult", 1095},
    {"core::UiText", 1052},
    {"core::UiTransform", 1050},
    {"core::VideoEvent", 1044},
    {"core::VideoPlayer", 1043},
    {"core::VirtualCamera", 1076},
    {"core::VisibilityComponent", 1081},
};

uint32_t ty_crdt_component_id(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof core_components / sizeof *core_components; i++)
    if (strlen(core_components[i].name) == len && memcmp(core_components[i].name, name, len) == 0)
      return core_components[i].id;
  /* @dcl/ecs writes the name into a zeroed Uint8Array(128), which drops bytes past its end,
   * and runs the CRC over all 128 bytes. */
  uint8_t bytes[128] = {0};
  if (len) memcpy(bytes, name, len < sizeof bytes ? len : sizeof bytes);
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < sizeof bytes; i++) {
    crc ^= bytes[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return (crc ^ 0xFFFFFFFFu) + 2048u; /* unsigned wrap is the JS `>>> 0` */
}

/* ---- core::Transform ---- */

void ty_crdt_transform_default(ty_crdt_transform *t) {
  memset(t, 0, sizeof *t);
  t->rotation[3] = 1.0f;
  t->scale[0] = t->scale[1] = t->scale[2] = 1.0f;
}

static void wrf32(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  wr32(p, u);
}

static float rdf32(const uint8_t *p) {
  uint32_t u = rd32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

void ty_crdt_transform_encode(const ty_crdt_transform *t, uint8_t out[TY_CRDT_TRANSFORM_SIZE]) {
  for (int i = 0; i < 3; i++) wrf32(out + 4 * i, t->position[i]);
  for (int i = 0; i < 4; i++) wrf32(out + 12 + 4 * i, t->rotation[i]);
  for (int i = 0; i < 3; i++) wrf32(out + 28 + 4 * i, t->scale[i]);
  wr32(out + 40, t->parent);
}

bool ty_crdt_transform_decode(const uint8_t *data, size_t len, ty_crdt_transform *t) {
  if (len != TY_CRDT_TRANSFORM_SIZE) return false;
  for (int i = 0; i < 3; i++) t->position[i] = rdf32(data + 4 * i);
  for (int i = 0; i < 4; i++) t->rotation[i] = rdf32(data + 12 + 4 * i);
  for (int i = 0; i < 3; i++) t->scale[i] = rdf32(data + 28 + 4 * i);
  t->parent = rd32(data + 40);
  return true;
}
