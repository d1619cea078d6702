// The parts of PixiJS the map uses, for the bundle: web/build.mjs resolves `pixi.js` to this file (the type
// checker still reads the package's own types). The package's index brings every part of PixiJS and registers
// them all — the WebGPU and canvas renderers, pointer events, accessibility, filters, asset loading, compressed
// textures… —, which on a phone is code to fetch and to run before the first frame. Each class below brings the
// parts it needs itself (Graphics its pipes, Text and BitmapText theirs, Application its resize plugin).
// PixiJS still loads its WebGPU or canvas renderer on demand where WebGL is missing (autoDetectRenderer).
//
// A new class from `pixi.js` in src/ must be added here too: the build fails on an import this file lacks.

// texture sources and masks (the index registers them too)
import "../../node_modules/pixi.js/lib/rendering/init.mjs";

export { Application } from "../../node_modules/pixi.js/lib/app/Application.mjs";
export { Container } from "../../node_modules/pixi.js/lib/scene/container/Container.mjs";
export { Graphics } from "../../node_modules/pixi.js/lib/scene/graphics/shared/Graphics.mjs";
export { Sprite } from "../../node_modules/pixi.js/lib/scene/sprite/Sprite.mjs";
export { Texture } from "../../node_modules/pixi.js/lib/rendering/renderers/shared/texture/Texture.mjs";
export { TextureSource } from "../../node_modules/pixi.js/lib/rendering/renderers/shared/texture/sources/TextureSource.mjs";
export { Rectangle } from "../../node_modules/pixi.js/lib/maths/shapes/Rectangle.mjs";
export { BitmapText } from "../../node_modules/pixi.js/lib/scene/text-bitmap/BitmapText.mjs";
export { Text } from "../../node_modules/pixi.js/lib/scene/text/Text.mjs";
