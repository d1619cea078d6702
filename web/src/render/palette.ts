// Colours: the Okabe–Ito palette (distinguishable with every common colour-vision deficiency), always
// paired with a shape or a letter so that nothing is told by colour alone.

export const OKABE_ITO = {
  orange: 0xe69f00,
  skyBlue: 0x56b4e9,
  bluishGreen: 0x009e73,
  yellow: 0xf0e442,
  blue: 0x0072b2,
  vermillion: 0xd55e00,
  reddishPurple: 0xcc79a7,
  black: 0x000000,
} as const;

/** Core colours; the shapes are: ice hexagon, iron square, carbon diamond, uranium triangle, hollow ring. */
export const CORE_COLOUR: Record<string, number> = {
  ice: OKABE_ITO.skyBlue,
  iron: OKABE_ITO.vermillion,
  carbon: OKABE_ITO.reddishPurple,
  uranium: OKABE_ITO.yellow,
  hollow: 0x9aa6b8,
  unknown: 0x6b7689,
};

/** Settlers are coloured by seat (with their number on them). */
export const SEAT_COLOUR: number[] = [
  OKABE_ITO.orange,
  OKABE_ITO.skyBlue,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.yellow,
  OKABE_ITO.vermillion,
  0xffffff,
  OKABE_ITO.blue,
];

export const SUN_HALO = OKABE_ITO.orange;
export const STORM = OKABE_ITO.vermillion;
export const SHELTER = OKABE_ITO.bluishGreen;
export const GATE = OKABE_ITO.reddishPurple;
export const ROCK = 0x5a5f6e;
export const ROCK_LIGHT = 0x8d93a3;
export const LINK = 0x7f8ba3;
export const HIGHLIGHT = 0xffffff;
export const NEIGHBOUR = OKABE_ITO.skyBlue;
export const BACKGROUND = 0x070b16;

export function css(colour: number): string {
  return `#${colour.toString(16).padStart(6, "0")}`;
}
