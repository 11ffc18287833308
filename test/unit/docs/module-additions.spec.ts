import { addToModuleFile } from '../../helpers/module-additions';

// The Nest 12 starter's module, as `nest new` writes it: main.ts imports
// ObserveInstrument from it, so an addition must keep every line of it.
const NEST_12_STARTER = `import { Module } from '@nestjs/common';
import { createObserveModule } from '@nestjs/observe';
import { AppController } from './app.controller.js';
import { AppService } from './app.service.js';

export const { ObserveModule, ObserveInstrument } = createObserveModule();

@Module({
  imports: [
    // Tracing, out of the box.
    ObserveModule.forRoot({ serviceId: 'my-app' }),
  ],
  controllers: [AppController],
  providers: [AppService],
})
export class AppModule {}
`;

const NEST_11_STARTER = `import { Module } from '@nestjs/common';
import { AppController } from './app.controller';
import { AppService } from './app.service';

@Module({
  imports: [],
  controllers: [AppController],
  providers: [AppService],
})
export class AppModule {}
`;

const ADDITION = `// add to src/app.module.ts
import { Module } from '@nestjs/common';

import { DigestModule } from './digest.module.js';

@Module({
  imports: [DigestModule],
})
export class AppModule {}
`;

describe('addToModuleFile', () => {
  it('appends to the starter’s imports and keeps everything else of a Nest 12 starter', () => {
    expect(addToModuleFile(NEST_12_STARTER, ADDITION)).toBe(
      NEST_12_STARTER.replace(
        "import { AppService } from './app.service.js';\n",
        "import { AppService } from './app.service.js';\nimport { DigestModule } from './digest.module.js';\n",
      ).replace(
        "ObserveModule.forRoot({ serviceId: 'my-app' }),",
        "ObserveModule.forRoot({ serviceId: 'my-app' }), DigestModule,",
      ),
    );
  });

  it('fills an empty imports array of a Nest 11 starter', () => {
    const added = addToModuleFile(NEST_11_STARTER, ADDITION);
    expect(added).toContain('imports: [DigestModule],');
    expect(added).toContain('controllers: [AppController],');
    expect(added.match(/from '@nestjs\/common'/g)).toHaveLength(1);
  });

  it('adds a missing array and a name missing from an import of the same module', () => {
    const added = addToModuleFile(
      NEST_11_STARTER.replace('  imports: [],\n', ''),
      `import { Global, Module } from '@nestjs/common';\n@Module({ exports: [Global] })\nexport class AppModule {}\n`,
    );
    expect(added).toContain("import { Module, Global } from '@nestjs/common';");
    expect(added).toContain('exports: [Global],');
  });

  it('refuses a file without @Module()', () => {
    expect(() => addToModuleFile('export const x = 1;\n', ADDITION)).toThrow(
      'the file has no @Module({ ... }) to add to',
    );
  });
});
